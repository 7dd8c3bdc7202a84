package preflight

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// neverAllows returns why b's PDB, which allows no disruption now, will
// never allow one without someone changing it or its workload, in the
// disruption controller's terms (pkg/controller/disruption:
// getExpectedPodCount, updatePdbStatus), or "" when it can recover:
//   - its status cannot be computed: condition DisruptionAllowed=False with
//     reason SyncFailed (pods whose owner has no scale subresource, ...),
//     and the controller then keeps disruptionsAllowed at 0;
//   - it expects no pods: disruptionsAllowed is 0 whenever expectedPods is
//     (a budget that sets neither minAvailable nor maxUnavailable, or pods
//     whose controllers it finds no scale for);
//   - it selects too few pods: maxUnavailable and percentages count the
//     controllers' whole scale in expectedPods, so a budget over part of a
//     StatefulSet can need more healthy pods than it will ever select.
func neverAllows(b *budgetBucket, in Input) string {
	pdb, st := b.pdb, b.pdb.Status
	if st.DisruptionsAllowed > 0 {
		return ""
	}
	// A failed sync writes no observedGeneration: it is checked first,
	// unless the status predates an edit of the spec (then it is stale).
	if syncFailed(pdb) && (st.ObservedGeneration == 0 || st.ObservedGeneration == pdb.Generation) {
		c := meta.FindStatusCondition(pdb.Status.Conditions, policyv1.DisruptionAllowedCondition)
		return fmt.Sprintf("the disruption controller cannot compute its status (condition DisruptionAllowed=False, reason SyncFailed: %s), and keeps disruptionsAllowed at 0 until it can", c.Message)
	}
	if st.ObservedGeneration < pdb.Generation {
		return ""
	}
	selected, toCome := selectedAndToCome(pdb, in.NamespacePods)
	// An integer minAvailable counts the selected pods themselves: 0 with
	// pods selected is a status not yet updated, not a budget that cannot
	// move.
	intMin := pdb.Spec.MinAvailable != nil && pdb.Spec.MinAvailable.Type == intstr.Int
	if st.ExpectedPods == 0 && !(intMin && selected > 0) {
		why := "it finds no scale for the controllers of the pods it selects (bare pods, or an owner without a scale subresource)"
		if pdb.Spec.MinAvailable == nil && pdb.Spec.MaxUnavailable == nil {
			why = "it sets neither minAvailable nor maxUnavailable"
		}
		return fmt.Sprintf("its status has expectedPods 0, desiredHealthy %d, disruptionsAllowed 0%s: %s, and the disruption controller allows no disruption while it expects no pods",
			st.DesiredHealthy, conditionText(pdb), why)
	}
	if st.ExpectedPods > 0 && selected+toCome <= st.DesiredHealthy {
		return fmt.Sprintf("its status has expectedPods %d (the scale of its pods' controllers) and desiredHealthy %d, but it selects %d pod(s) and at most %d more can come, so currentHealthy can never exceed desiredHealthy and disruptionsAllowed (currentHealthy - desiredHealthy) stays 0",
			st.ExpectedPods, st.DesiredHealthy, selected, toCome)
	}
	return ""
}

// selectedAndToCome counts the pods pdb selects that are neither
// terminating nor finished, and how many pods its pods' controllers may
// still create (expectedPods minus the pods those controllers have,
// selected or not): the most it can ever count as healthy.
func selectedAndToCome(pdb *policyv1.PodDisruptionBudget, pods []corev1.Pod) (selected, toCome int32) {
	sel, ok := budgetSelector(pdb)
	if !ok {
		return 0, pdb.Status.ExpectedPods
	}
	owners := map[string]bool{}
	key := func(r *metav1.OwnerReference) string { return r.Kind + "/" + r.Name + "/" + string(r.UID) }
	ours := func(p *corev1.Pod) bool { return p.Namespace == pdb.Namespace && live(p) }
	for i := range pods {
		p := &pods[i]
		if ours(p) && sel.Matches(labels.Set(p.Labels)) {
			selected++
			if ref := metav1.GetControllerOf(p); ref != nil {
				owners[key(ref)] = true
			}
		}
	}
	var owned int32
	for i := range pods {
		if p := &pods[i]; ours(p) {
			if ref := metav1.GetControllerOf(p); ref != nil && owners[key(ref)] {
				owned++
			}
		}
	}
	return selected, max(pdb.Status.ExpectedPods-owned, 0)
}

// syncFailed reports whether the disruption controller could not compute
// pdb's status (condition DisruptionAllowed=False, reason SyncFailed).
func syncFailed(pdb *policyv1.PodDisruptionBudget) bool {
	c := meta.FindStatusCondition(pdb.Status.Conditions, policyv1.DisruptionAllowedCondition)
	return c != nil && c.Status == metav1.ConditionFalse && c.Reason == policyv1.SyncFailedReason
}

// conditionText is ", condition DisruptionAllowed=False (REASON)", or "".
func conditionText(pdb *policyv1.PodDisruptionBudget) string {
	if c := meta.FindStatusCondition(pdb.Status.Conditions, policyv1.DisruptionAllowedCondition); c != nil {
		return fmt.Sprintf(", condition DisruptionAllowed=%s (%s)", c.Status, c.Reason)
	}
	return ""
}
