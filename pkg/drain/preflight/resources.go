package preflight

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
)

// amounts are quantities per resource in the Unit of each.
type amounts map[corev1.ResourceName]int64

// podRequests returns the effective requests of pod as the scheduler
// counts them (k8s.io/component-helpers/resource.PodRequests: the larger
// of the init containers' and the sum of the app and sidecar containers',
// pod-level resources, plus overhead), and one "pods".
func podRequests(pod *corev1.Pod) amounts {
	out := amounts{corev1.ResourcePods: 1}
	for name, q := range resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{}) {
		if v := amountOf(name, q); v > 0 {
			out[name] += v
		}
	}
	return out
}

// resourceOrder returns the names of a: cpu, memory and pods first, then
// the others sorted.
func resourceOrder(a amounts) []corev1.ResourceName {
	first := []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods}
	var out, rest []corev1.ResourceName
	for _, name := range first {
		if _, ok := a[name]; ok {
			out = append(out, name)
		}
	}
	for name := range a {
		if name != corev1.ResourceCPU && name != corev1.ResourceMemory && name != corev1.ResourcePods {
			rest = append(rest, name)
		}
	}
	sort.Slice(rest, func(i, j int) bool { return rest[i] < rest[j] })
	return append(out, rest...)
}

// amountOf returns q in the Unit of resource name (cpu in millicores,
// rounded up as the scheduler rounds requests).
func amountOf(name corev1.ResourceName, q resource.Quantity) int64 {
	if name == corev1.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}
