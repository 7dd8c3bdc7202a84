package preflight

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// stuckSlack is how long past its grace deadline a pod may still be there
// before the preflight calls it stuck: the kubelet kills the containers at
// the deadline and then reports, which takes a few seconds on a busy node.
const stuckSlack = 5 * time.Second

// TerminatingPod is a pod on the node that already has a deletionTimestamp:
// the drain does not need to evict it, but it waits until it is gone.
type TerminatingPod struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// DeletedSecondsAgo is how long ago its last delete request was, in
	// seconds: deletionTimestamp minus deletionGracePeriodSeconds, since the
	// API server sets deletionTimestamp to the request time plus the grace
	// period, and moves it when a later request (the kubelet's final one,
	// with grace 0) shortens it. The first request's time is not recorded.
	DeletedSecondsAgo int64 `json:"deletedSecondsAgo"`
	// GraceDeadline is its deletionTimestamp: when the kubelet kills what
	// is left of its containers.
	GraceDeadline metav1.Time `json:"graceDeadline"`
	// SecondsPastDeadline is how far past GraceDeadline the preflight ran,
	// in seconds; negative while the grace period runs.
	SecondsPastDeadline int64 `json:"secondsPastDeadline"`
	// Finalizers are its metadata.finalizers: the API server removes the
	// pod only once each is taken off by whoever added it.
	Finalizers []string `json:"finalizers"`
	// WaitsOn says what its removal waits on, for a person ("finalizer
	// example.com/hold").
	WaitsOn string `json:"waitsOn"`
	// nodeReady is whether its node is Ready; stopped, whether only its
	// finalizers keep it (terminatingPod says when).
	nodeReady, stopped bool
}

// terminatingPod describes pod, which has a deletionTimestamp, as of now;
// nodeReady says whether its node's kubelet can still confirm the end of
// its containers.
func terminatingPod(pod *corev1.Pod, now time.Time, nodeReady bool) TerminatingPod {
	deadline := pod.DeletionTimestamp.Time
	var grace int64
	if g := pod.DeletionGracePeriodSeconds; g != nil {
		grace = *g
	}
	t := TerminatingPod{Namespace: pod.Namespace, Name: pod.Name, GraceDeadline: *pod.DeletionTimestamp,
		DeletedSecondsAgo:   int64(now.Sub(deadline.Add(-time.Duration(grace) * time.Second)).Seconds()),
		SecondsPastDeadline: int64(now.Sub(deadline).Seconds()), Finalizers: append([]string{}, pod.Finalizers...),
		// Nothing but finalizers keeps a terminal pod, or one whose
		// deletionGracePeriodSeconds is 0 (the kubelet's final delete, or
		// a forced one): the API server removes it once they are empty
		// (registry/rest BeforeDelete, the pod strategy's CheckGracefulDelete).
		nodeReady: nodeReady, stopped: finished(pod) || grace == 0 && pod.DeletionGracePeriodSeconds != nil}
	var waits []string
	if t.SecondsPastDeadline < 0 && !t.stopped {
		waits = append(waits, fmt.Sprintf("its grace period (ends in %s)", time.Duration(-t.SecondsPastDeadline)*time.Second))
	}
	switch {
	case len(pod.Finalizers) == 1:
		waits = append(waits, "finalizer "+pod.Finalizers[0])
	case len(pod.Finalizers) > 1:
		waits = append(waits, "finalizers "+strings.Join(pod.Finalizers, ", "))
	case (t.SecondsPastDeadline >= 0 || t.stopped) && !nodeReady:
		waits = append(waits, "the kubelet of node "+pod.Spec.NodeName+", which is not Ready: it stays until force-deleted")
	case t.SecondsPastDeadline >= 0 || t.stopped:
		waits = append(waits, "the kubelet of node "+pod.Spec.NodeName+" to report its containers stopped")
	}
	t.WaitsOn = strings.Join(waits, ", then ")
	return t
}

// held reports whether only its finalizers keep the pod now: its grace
// deadline passed or its containers stopped, and one is still set. Whoever
// added a finalizer removes it when it chooses: no time can be told.
func (t TerminatingPod) held() bool {
	return len(t.Finalizers) > 0 && (t.stopped || t.SecondsPastDeadline >= 0)
}

// stuck reports whether the pod will not go by itself in a time the
// preflight can tell: held by its finalizers, past its deadline on a node
// that is not Ready (no kubelet to confirm the end of its containers), or
// still there well past its deadline.
func (t TerminatingPod) stuck() bool {
	return t.held() || (t.SecondsPastDeadline >= 0 && !t.nodeReady) || time.Duration(t.SecondsPastDeadline)*time.Second > stuckSlack
}

// terminatingIssue returns the blocker of a pod that will not go by
// itself, the warning of one whose finalizers will hold it after its grace
// period, or nil.
func terminatingIssue(t TerminatingPod) *Issue {
	key := t.Namespace + "/" + t.Name
	switch {
	case t.stuck():
		return &Issue{Kind: BlockerTerminatingStuck, Pod: key, Message: fmt.Sprintf(
			"pod %s (last delete request %s ago) is still there %s: it waits on %s; %s",
			key, time.Duration(t.DeletedSecondsAgo)*time.Second, t.since(), t.WaitsOn, t.remedy())}
	case len(t.Finalizers) > 0:
		return &Issue{Kind: WarningTerminatingFinalizer, Pod: key, Message: fmt.Sprintf(
			"pod %s is terminating and waits on %s: it stays after its grace period until they are removed",
			key, t.WaitsOn)}
	}
	return nil
}

// since says how long the pod has been kept beyond what the kubelet does.
func (t TerminatingPod) since() string {
	if t.stopped && t.SecondsPastDeadline < 0 {
		return "after its containers stopped"
	}
	return fmt.Sprintf("%s after its grace deadline", time.Duration(max(t.SecondsPastDeadline, 0))*time.Second)
}

// remedy says whether waiting can help a stuck pod, and what does.
func (t TerminatingPod) remedy() string {
	switch {
	case t.held():
		return "only whoever added it removes it, and the drain cannot tell when: waiting helps only if that controller acts " +
			"(the drain waits until --timeout); find what owns the finalizer, or remove it once that is safe"
	case !t.nodeReady:
		return "waiting will not help while the node is not Ready: no kubelet confirms the end of its containers; " +
			"bring the node back, or force-delete the pod (--grace-period=0 --force) once it is known stopped"
	}
	return "cannot tell when it reports: the drain waits for it until --timeout"
}
