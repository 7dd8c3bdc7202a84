package podspec

import corev1 "k8s.io/api/core/v1"

// GracePeriod is the pod spec's terminationGracePeriodSeconds with the API
// default (30 s) applied.
func GracePeriod(spec corev1.PodSpec) int64 {
	if spec.TerminationGracePeriodSeconds == nil {
		return corev1.DefaultTerminationGracePeriodSeconds
	}
	return *spec.TerminationGracePeriodSeconds
}
