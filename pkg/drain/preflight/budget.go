package preflight

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// matchingPDBs returns the PodDisruptionBudgets of pod's namespace whose
// selector matches it. policy/v1 semantics: a nil selector matches nothing,
// an empty one every pod of the namespace (the eviction subresource's
// getPodDisruptionBudgets). An invalid selector matches nothing.
func matchingPDBs(pod *corev1.Pod, pdbs []policyv1.PodDisruptionBudget) []*policyv1.PodDisruptionBudget {
	var out []*policyv1.PodDisruptionBudget
	for i := range pdbs {
		if pdb := &pdbs[i]; pdb.Namespace == pod.Namespace {
			if sel, ok := budgetSelector(pdb); ok && sel.Matches(labels.Set(pod.Labels)) {
				out = append(out, pdb)
			}
		}
	}
	return out
}

// budgetSelector returns pdb's selector, false when it selects nothing:
// nil (policy/v1) or invalid.
func budgetSelector(pdb *policyv1.PodDisruptionBudget) (labels.Selector, bool) {
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	return sel, err == nil && pdb.Spec.Selector != nil
}

// zeroBySpec returns why pdb can never allow a voluntary disruption, or ""
// when it can: maxUnavailable 0 or "0%", minAvailable "100%", an integer
// minAvailable at least as large as the pods it selects that are not
// terminating (the most it can ever count healthy: the disruption
// controller counts a terminating pod and its replacement both in
// expectedPods, which is then no ceiling), or a percentage whose
// desiredHealthy is at least expectedPods (the controllers' scale).
func zeroBySpec(pdb *policyv1.PodDisruptionBudget, pods []corev1.Pod) string {
	if mu := pdb.Spec.MaxUnavailable; mu != nil && (mu.String() == "0" || mu.String() == "0%") {
		return "maxUnavailable: " + mu.String()
	}
	ma := pdb.Spec.MinAvailable
	switch {
	case ma == nil:
		return ""
	case ma.Type == intstr.String && ma.StrVal == "100%":
		return "minAvailable: 100%"
	case ma.Type == intstr.Int:
		if selected, _ := selectedAndToCome(pdb, pods); selected > 0 && ma.IntVal >= selected {
			return "minAvailable: " + ma.String() + " with " + strconv.Itoa(int(selected)) + " pod(s) selected that are not terminating"
		}
		return ""
	}
	if st := pdb.Status; st.ExpectedPods > 0 && st.DesiredHealthy >= st.ExpectedPods {
		return "minAvailable: " + ma.String() + " with " + strconv.Itoa(int(st.ExpectedPods)) + " expected pods"
	}
	return ""
}

// unhealthyPolicy returns the PDB's unhealthyPodEvictionPolicy, defaulting
// to IfHealthyBudget as the API does when it is unset.
func unhealthyPolicy(pdb *policyv1.PodDisruptionBudget) policyv1.UnhealthyPodEvictionPolicyType {
	return ptr.Deref(pdb.Spec.UnhealthyPodEvictionPolicy, policyv1.IfHealthyBudget)
}

// unhealthyEvictable reports whether the eviction API lets an unready
// (Running, not Ready) pod under pdb go: always under AlwaysAllow; under
// IfHealthyBudget only while currentHealthy >= desiredHealthy > 0
// (pkg/registry/core/pod/storage/eviction.go), or while the budget still
// allows a disruption.
func unhealthyEvictable(pdb *policyv1.PodDisruptionBudget) bool {
	if unhealthyPolicy(pdb) == policyv1.AlwaysAllow {
		return true
	}
	st := pdb.Status
	return (st.CurrentHealthy >= st.DesiredHealthy && st.DesiredHealthy > 0) || st.DisruptionsAllowed > 0
}

// pdbName returns "namespace/name".
func pdbName(pdb *policyv1.PodDisruptionBudget) string { return pdb.Namespace + "/" + pdb.Name }
