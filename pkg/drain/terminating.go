package drain

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// waitsOn says what the deletion of a terminating pod (deletionTimestamp
// set) waits on, "" when the pod is not terminating. The API server keeps a
// pod with finalizers until every finalizer is removed, whatever its grace
// period; without finalizers it goes once the kubelet confirms its
// containers stopped, which the kubelet does by the deletionTimestamp (the
// grace deadline: the time of the delete plus the grace period).
func waitsOn(pod *corev1.Pod, now time.Time) string {
	if pod.DeletionTimestamp == nil {
		return ""
	}
	deadline := pod.DeletionTimestamp.Time
	if len(pod.Finalizers) > 0 {
		noun := "finalizer"
		if len(pod.Finalizers) > 1 {
			noun = "finalizers"
		}
		return noun + " " + strings.Join(pod.Finalizers, ", ")
	}
	if now.Before(deadline) {
		return "its grace deadline " + deadline.UTC().Format(time.TimeOnly) + "Z (in " + deadline.Sub(now).Round(time.Second).String() + ")"
	}
	return fmt.Sprintf("the kubelet: its grace deadline passed %s ago", now.Sub(deadline).Round(time.Second))
}

// alreadyTerminating records that pod was found terminating by someone
// else's delete: it is not evicted again, only waited for.
func (t *podTracker) alreadyTerminating(pod *corev1.Pod) {
	why := waitsOn(pod, time.Now())
	t.update(pod.Namespace, pod.Name, func(p *PodProgress) {
		if p.State == StateGone {
			return
		}
		t.begin(p)
		p.State, p.WaitsOn = StateTerminating, why
		p.Cause = "already terminating, not evicted again; waits on " + why
		if p.lost {
			p.Cause = "the eviction's answer was lost, the pod was then found terminating; waits on " + why
		}
	})
}

// listedPod returns the pod "namespace/name" as listed when the evictions
// started, nil when it was not listed.
func (t *podTracker) listedPod(key string) *corev1.Pod {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.listed[key]
}
