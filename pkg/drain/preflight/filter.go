package preflight

import (
	corev1 "k8s.io/api/core/v1"
	kdrain "k8s.io/kubectl/pkg/drain"
)

// Filter is the drain's own pod filter under f, for kubectl's
// drain.Helper.AdditionalFilters (after kubectl's own): it refuses a pod
// annotated not to be disrupted (the annotations cluster-autoscaler and
// Karpenter honour) unless f.EvictDoNotDisrupt, and, under --order
// priority, leaves in place a pod Cluster API's drain label says not to
// evict (skip, or wait-completed: waited for instead). Check and Evicts
// apply the same rules.
func Filter(f Flags) kdrain.PodFilter {
	return func(pod corev1.Pod) kdrain.PodDeleteStatus {
		if why := doNotDisrupt(&pod); why != "" && !f.EvictDoNotDisrupt {
			return kdrain.MakePodDeleteStatusWithError("Pods annotated " + why + " (use --evict-do-not-disrupt to override)")
		}
		if drainLabelValue(&pod, f) != "" {
			return kdrain.MakePodDeleteStatusSkip()
		}
		return kdrain.MakePodDeleteStatusOkay()
	}
}
