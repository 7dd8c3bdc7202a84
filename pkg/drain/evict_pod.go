package drain

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/eviction"
)

// maxConflicts bounds the evictions of one pod refused by their
// resourceVersion precondition (a pod whose status keeps changing); the
// next is sent with the UID precondition only.
const maxConflicts = 5

// conflictWait bounds the wait, after a 409, for the watch to deliver the
// version of the pod that changed.
const conflictWait = 2 * time.Second

// lostWait bounds the wait, after an eviction whose answer was lost, for
// the watch to show whether the API server admitted it (the pod
// terminating) before the eviction is sent again: the watch may be in a
// gap after the failure that lost the answer.
const lostWait = 5 * time.Second

// admissionRefusedPrefix starts the cause of a pod whose eviction an
// admission webhook or a ValidatingAdmissionPolicy denied.
const admissionRefusedPrefix = "refused by admission: "

// podRetries is what one pod's loop remembers of its earlier answers.
type podRetries struct {
	refused, lost, conflicts int
	// last is the last refusal (a budget's 429, throttling, a terminating
	// namespace): it sets the next wait.
	last eviction.Answer
}

// evict evicts one pod (deletes it with --disable-eviction) and waits
// until the node's pod watch saw it leave. It returns nil once the pod is
// gone, the error that ended it otherwise (a refusal for good, an API
// failure, ctx ending).
func (e *evictor) evict(ctx context.Context, listed *corev1.Pod) error {
	var r podRetries
	for {
		pod, gone, failed, _ := e.pods.current(listed)
		if over, err := e.over(listed, gone, failed); over {
			return err
		}
		if pod.DeletionTimestamp != nil {
			// Evicting a terminating pod would delete it again (the
			// eviction subresource skips budgets for it): wait for it.
			if !e.tracker.wasAccepted(podKey(listed)) {
				e.tracker.alreadyTerminating(pod)
			}
			return e.waitGone(ctx, listed)
		}
		if err := e.reserve(ctx, pod); err != nil {
			return err
		}
		e.tracker.attempt(pod.Namespace, pod.Name)
		sentVersion, sentBudget := pod.ResourceVersion, e.budgets.changeCount(e.pdbOf[podKey(pod)])
		mark := e.markOf(pod)
		err := e.send(ctx, pod, r.conflicts < maxConflicts)
		a := eviction.Read(err)
		e.pacer.done(e.pdbOf[podKey(pod)], pod.Name, a.Kind == eviction.Accepted || a.Kind == eviction.Lost)
		if apierrors.IsConflict(err) && r.conflicts < maxConflicts {
			// The pod changed since the version held: another drain may
			// have evicted it (the eviction subresource answers success
			// for a terminating pod, so only the precondition tells), or
			// a new pod holds the name. Wait for the watch to say which.
			r.conflicts++
			e.waitNewer(ctx, listed, sentVersion, conflictWait)
			if e.spentByRefusal(ctx, listed, sentVersion, mark) {
				// Finish what the budget admitted: one DELETE, its UID
				// alone as precondition (the budget let this pod go), then
				// wait for it to go; not done, the loop goes on (also when
				// pods may not be deleted, which the preflight does not ask).
				if done, err := e.deleteOnce(ctx, listed, pod, e.deleteOptions(pod, false), spentCause); done {
					return err
				}
			}
			continue
		}
		if done, err := e.answered(ctx, listed, a, err, &r); done {
			return err
		}
		// A budget's 429 once the --delete-after deadline passed: delete now.
		if a.Kind == eviction.BudgetRefused && !e.deleteAt.IsZero() && !time.Now().Before(e.deleteAt) {
			return e.override(ctx, pod)
		}
		if !e.waitRetry(ctx, pod, a, &r, sentBudget) {
			return fmt.Errorf("eviction not retried: %w", context.Cause(ctx))
		}
		if a.Kind == eviction.Lost {
			e.waitNewer(ctx, listed, sentVersion, lostWait)
		}
	}
}

// answered records the answer a to one request and reports whether the
// pod's loop is done, with its result; false means retry after the wait.
func (e *evictor) answered(ctx context.Context, listed *corev1.Pod, a eviction.Answer, err error, r *podRetries) (bool, error) {
	ns, name := listed.Namespace, listed.Name
	switch {
	case a.Kind == eviction.Accepted:
		cause := ""
		if e.flags.DisableEviction {
			cause = "deleted (--disable-eviction)"
		}
		e.tracker.accept(ns, name, cause)
		return true, e.waitGone(ctx, listed)
	case a.Kind == eviction.NotFound, apierrors.IsConflict(err):
		// Gone already, or (the UID precondition alone) replaced.
		return true, e.waitGone(ctx, listed)
	case a.Kind == eviction.Lost && ctx.Err() == nil:
		r.lost++
		e.tracker.set(ns, name, StateAnswerLost, a.Cause)
		return false, nil
	case a.Retryable():
		r.refused++
		r.last = a
		e.record(listed, a, e.backoff.delay(r.refused))
		return false, nil
	case ctx.Err() != nil:
		e.tracker.stopped(ns, name)
		return true, err
	case a.Kind == eviction.AdmissionRefused:
		// A policy or webhook may hold one pod while an operator moves it
		// itself (Strimzi's drain cleaner): retried with back-off until
		// --timeout, the pod read again from the watch each time, so that
		// it counts as gone once its operator deleted it.
		r.refused++
		r.last = a
		e.tracker.set(ns, name, StateBlocked, admissionRefusedPrefix+a.Cause)
		return false, nil
	}
	return true, e.fail(listed, err)
}

// fail records that the pod's eviction ended for good with err.
func (e *evictor) fail(pod *corev1.Pod, err error) error {
	e.failures.note(err)
	e.tracker.set(pod.Namespace, pod.Name, StateFailed, eviction.Read(err).Cause)
	return err
}

// send sends one eviction of pod (a delete with --disable-eviction) with
// the options of deleteOptions. It is sent once (eviction.Send).
func (e *evictor) send(ctx context.Context, pod *corev1.Pod, withVersion bool) error {
	return eviction.Send(ctx, e.client, pod.Namespace, pod.Name, e.deleteOptions(pod, withVersion), e.flags.DisableEviction)
}

// deleteOptions has pod's UID as a precondition, so that a pod recreated
// under the name is never evicted in its place, and withVersion its
// resourceVersion, so that the request fails with a 409 when the pod
// changed since, as when another client evicted it: the eviction
// subresource evicts a terminating pod again and answers success, which
// would make us claim another drain's eviction. Under a budget that 409
// can come after the budget was spent (spentByRefusal). The grace period
// is --grace-period's, each pod's own when negative (kubectl's rule).
func (e *evictor) deleteOptions(pod *corev1.Pod, withVersion bool) metav1.DeleteOptions {
	opts := metav1.DeleteOptions{}
	if e.flags.GracePeriodSeconds >= 0 {
		opts.GracePeriodSeconds = ptr.To(int64(e.flags.GracePeriodSeconds))
	}
	if pod.UID != "" {
		opts.Preconditions = &metav1.Preconditions{UID: ptr.To(pod.UID)}
		if rv := pod.ResourceVersion; withVersion && rv != "" {
			opts.Preconditions.ResourceVersion = &rv
		}
	}
	return opts
}

// waitGone waits until the node's pod watch saw pod leave; it returns
// ctx's cause when ctx ends first, the watch's error when it failed for
// good.
func (e *evictor) waitGone(ctx context.Context, listed *corev1.Pod) error {
	for {
		_, gone, failed, changed := e.pods.current(listed)
		if over, err := e.over(listed, gone, failed); over {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("pod not seen gone: %w", context.Cause(ctx))
		case <-changed:
		}
	}
}

// over reports whether listed's eviction is over as the node's pod watch
// last saw it: the pod gone (recorded as such; nil error) or the watch
// failed for good (its error, recorded as the pod's failure).
func (e *evictor) over(listed *corev1.Pod, gone bool, failed error) (bool, error) {
	switch {
	case gone:
		e.tracker.set(listed.Namespace, listed.Name, StateGone, "")
		return true, nil
	case failed != nil:
		return true, e.fail(listed, failed)
	}
	return false, nil
}

// waitNewer waits, at most limit, until the watch delivers a version of
// pod other than version, or sees it leave.
func (e *evictor) waitNewer(ctx context.Context, listed *corev1.Pod, version string, limit time.Duration) {
	t := time.NewTimer(limit)
	defer t.Stop()
	for {
		pod, gone, failed, changed := e.pods.current(listed)
		if gone || failed != nil || pod.ResourceVersion != version {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			return
		case <-changed:
		}
	}
}
