package drain

import (
	"context"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/eviction"
)

// spentCause is the cause of a pod whose refused eviction spent its budget
// and which the drain then deleted (the eviction loop, evictor.evict).
const spentCause = "the API server let the eviction through its budget (status.disruptedPods), then refused the delete on a changed resourceVersion: the drain deleted the pod the budget had let go"

// budgetMark is what a budget's status said of one pod before an eviction
// was sent: whether, and since when, it counted the pod as disrupted.
type budgetMark struct {
	since    time.Time
	recorded bool
}

// markOf reads pod's entry in its budget's status.disruptedPods.
func (e *evictor) markOf(pod *corev1.Pod) budgetMark {
	since, ok := e.budgets.disruptedSince(e.pdbOf[podKey(pod)], pod.Name)
	return budgetMark{since, ok}
}

// spentByRefusal reports whether the eviction of pod just answered 409
// was recorded by its budget all the same: the budget is spent before the
// resourceVersion precondition is checked (docs/drain.md, "The eviction
// engine", step 2). The version can also go stale inside
// addConditionAndDeletePod, between its DisruptionTarget write and its
// delete, so a pod showing the condition is given conflictWait to turn
// terminating before the budget's entry counts as spent. It needs the watch to hold a version of pod newer than sent and
// not terminating, and waits at most conflictWait for the budget's watch
// to show an entry for pod that was not there before the request.
func (e *evictor) spentByRefusal(ctx context.Context, listed *corev1.Pod, sent string, before budgetMark) bool {
	pdb := e.pdbOf[podKey(listed)]
	if pdb == "" {
		return false
	}
	t := time.NewTimer(conflictWait)
	defer t.Stop()
	for waited := false; ; {
		pod, gone, failed, podChanged := e.pods.current(listed)
		if gone || failed != nil || pod.ResourceVersion == sent || pod.DeletionTimestamp != nil {
			return false
		}
		_, budgetChanged := e.budgets.state(pdb)
		now := e.markOf(listed)
		if now.recorded && (!before.recorded || !now.since.Equal(before.since)) && (waited || !evictionUnderway(pod)) {
			return true
		}
		if waited {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
			waited = true
		case <-budgetChanged:
		case <-podChanged:
		}
	}
}

// deleteOnce sends one DELETE of pod with opts (their UID precondition
// keeps a pod recreated under the name) and, once it is accepted (cause
// then says why), gone already or replaced, waits for listed to go. It
// reports false with the API server's error when the delete was refused
// otherwise, true with the result when the pod's loop is done.
func (e *evictor) deleteOnce(ctx context.Context, listed, pod *corev1.Pod, opts metav1.DeleteOptions, cause string) (bool, error) {
	e.tracker.attempt(pod.Namespace, pod.Name)
	err := eviction.Send(ctx, e.client, pod.Namespace, pod.Name, opts, true)
	switch a := eviction.Read(err); {
	case a.Kind == eviction.Accepted:
		e.tracker.accept(pod.Namespace, pod.Name, cause)
	case a.Kind == eviction.NotFound, apierrors.IsConflict(err):
		// Gone already, or replaced: the UID precondition kept the new one.
	case ctx.Err() != nil:
		e.tracker.stopped(pod.Namespace, pod.Name)
		return true, err
	default:
		return false, err
	}
	return true, e.waitGone(ctx, listed)
}

// evictionUnderway reports whether pod carries the DisruptionTarget
// condition an admitted eviction sets just before its delete
// (addConditionAndDeletePod): another client's eviction, in the instant
// between the two writes, or an eviction (ours too) whose delete then
// found the pod changed. One refused before that sets none, and the
// disruption controller sets it False when it drops a stale entry.
func evictionUnderway(pod *corev1.Pod) bool {
	return slices.ContainsFunc(pod.Status.Conditions, func(c corev1.PodCondition) bool {
		return c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue
	})
}
