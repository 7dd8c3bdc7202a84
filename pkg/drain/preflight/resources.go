package preflight

import (
	"cmp"
	"maps"
	"slices"

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
	rank := func(n corev1.ResourceName) int { return cmp.Or(slices.Index(first, n)+1, len(first)+1) }
	return slices.SortedFunc(maps.Keys(a), func(x, y corev1.ResourceName) int {
		return cmp.Or(cmp.Compare(rank(x), rank(y)), cmp.Compare(x, y))
	})
}

// amountOf returns q in the Unit of resource name (cpu in millicores,
// rounded up as the scheduler rounds requests).
func amountOf(name corev1.ResourceName, q resource.Quantity) int64 {
	if name == corev1.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}
