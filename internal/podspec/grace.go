package podspec

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// GracePeriod is the pod spec's terminationGracePeriodSeconds with the API
// default (30 s) applied.
func GracePeriod(spec corev1.PodSpec) int64 {
	return ptr.Deref(spec.TerminationGracePeriodSeconds, corev1.DefaultTerminationGracePeriodSeconds)
}

// Condition returns pod's status condition of type t, nil when it has none.
func Condition(pod *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	i := slices.IndexFunc(pod.Status.Conditions, func(c corev1.PodCondition) bool { return c.Type == t })
	if i < 0 {
		return nil
	}
	return &pod.Status.Conditions[i]
}
