package preflight

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
)

// TestPreflightToleratesCordon: kubernetes-sigs/karpenter#1839, a pod
// that tolerates every taint (or the cordon's) may come back to the
// drained node: a blocker waiting does not help; the cordon does not close
// other nodes to it either.
func TestPreflightToleratesCordon(t *testing.T) {
	for name, tol := range map[string]corev1.Toleration{
		"every taint":   {Operator: corev1.TolerationOpExists},
		"unschedulable": {Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	} {
		t.Run(name, func(t *testing.T) {
			pods := threeWebPods(true)
			for i := range pods {
				pods[i].Spec.Tolerations = []corev1.Toleration{tol}
			}
			r := preflightOf(t, input(pods, []policyv1.PodDisruptionBudget{pdb("web", "web", 1, 3, 2, 3)}, node("node-b", true)))
			b := has(r.Blockers, BlockerToleratesCordon)
			if b == nil || b.Refuses || !strings.Contains(b.Message, "may be scheduled back on node-a") {
				t.Fatalf("blockers = %+v, want a tolerates-cordon blocker", r.Blockers)
			}
			if has(r.Blockers, BlockerPDBNoRoom) != nil {
				t.Errorf("the cordoned node-b is counted as closed to a pod that tolerates the cordon: %+v", r.Blockers)
			}
		})
	}
	t.Run("a taint of its own keeps it off", func(t *testing.T) {
		pods := threeWebPods(true)
		for i := range pods {
			pods[i].Spec.Tolerations = []corev1.Toleration{{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
		}
		in := input(pods, nil, node("node-b", false))
		in.Node.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}
		if b := has(preflightOf(t, in).Blockers, BlockerToleratesCordon); b != nil {
			t.Errorf("blocker %+v for a node the pod does not tolerate otherwise", b)
		}
	})
}
