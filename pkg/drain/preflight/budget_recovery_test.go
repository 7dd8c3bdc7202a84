package preflight

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// maxUnavailableOne is a PDB "maxUnavailable: 1" over app=web with the
// status the disruption controller computes from expected and current.
func maxUnavailableOne(expected, current int32, policy policyv1.UnhealthyPodEvictionPolicyType) policyv1.PodDisruptionBudget {
	p := pdb("web", "web", max(current-(expected-1), 0), current, expected-1, expected)
	p.Spec.MinAvailable = nil
	p.Spec.MaxUnavailable = ptr.To(intstr.FromInt32(1))
	p.Spec.UnhealthyPodEvictionPolicy = ptr.To(policy)
	return p
}

func pending(p corev1.Pod) corev1.Pod {
	p.Status.Phase = corev1.PodPending
	p.Status.Conditions = nil
	return p
}

// A budget whose disruptionsAllowed is 0 because pods elsewhere are
// unready does not free a disruption by itself: the drain is blocked, the
// blocker names those pods and their node, the plan says blocked and there
// is no estimate. Pods that may still turn Ready by themselves (Pending, not
// yet created, replacements of unready pods the drain evicts) make it wait
// instead.
func TestPreflightBudgetHeldByUnreadyPods(t *testing.T) {
	onA := []corev1.Pod{rsPod("web-1-a", "web-1", "web", "node-a", true), rsPod("web-1-b", "web-1", "web", "node-a", true)}
	sick := rsPod("other-1-x", "other-1", "web", "node-b", false)
	sick.Status.Conditions[0].LastTransitionTime = metav1.NewTime(time.Date(2026, 1, 1, 11, 0, 0, 0, time.UTC))
	sickHere := rsPod("other-1-y", "other-1", "web", "node-a", false)
	starting := pending(rsPod("other-1-z", "other-1", "web", "node-b", false))
	for _, c := range []struct {
		name    string
		pods    []corev1.Pod
		pdb     policyv1.PodDisruptionBudget
		blocked bool
		want    []string
	}{
		{"unready elsewhere, IfHealthyBudget", append(onA, sick), maxUnavailableOne(3, 2, policyv1.IfHealthyBudget), true,
			[]string{"shop/other-1-x on node node-b (Running, not Ready for 2m0s)", "IfHealthyBudget", "None of its 2 Ready pod(s)"}},
		{"unready elsewhere, AlwaysAllow", append(onA, sick), maxUnavailableOne(3, 2, policyv1.AlwaysAllow), true,
			[]string{"shop/other-1-x on node node-b", "AlwaysAllow the unready pods could be evicted first, but they are not on this node"}},
		{"one unready and one Pending elsewhere: one short", append(onA, sick, starting), maxUnavailableOne(4, 2, policyv1.IfHealthyBudget), true,
			[]string{"shop/other-1-x on node node-b"}},
		{"unready on this node: the drain evicts it", append(onA, sickHere), maxUnavailableOne(3, 2, policyv1.IfHealthyBudget), false, nil},
		{"Pending elsewhere: it may turn Ready", append(onA, starting), maxUnavailableOne(3, 2, policyv1.IfHealthyBudget), false, nil},
		{"a pod not yet created", onA, maxUnavailableOne(3, 2, policyv1.IfHealthyBudget), false, nil},
		{"budget allows one", append(onA, rsPod("other-1-w", "other-1", "web", "node-b", true)), maxUnavailableOne(3, 3, policyv1.IfHealthyBudget), false, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := input(c.pods, []policyv1.PodDisruptionBudget{c.pdb}, node("node-b", false))
			in.Now = time.Date(2026, 1, 1, 11, 2, 0, 0, time.UTC)
			r := preflightOf(t, in)
			b := has(r.Blockers, BlockerPDBHeldByUnready)
			if !c.blocked {
				if b != nil || len(r.Blockers) != 0 {
					t.Fatalf("blockers = %+v, want none (the budget may recover)", r.Blockers)
				}
				return
			}
			if b == nil || b.PDB != "shop/web" {
				t.Fatalf("blockers = %+v, want %s for shop/web", r.Blockers, BlockerPDBHeldByUnready)
			}
			for _, w := range c.want {
				if !strings.Contains(b.Message, w) {
					t.Errorf("message %q lacks %q", b.Message, w)
				}
			}
			if len(r.Budgets) != 1 || r.Budgets[0].Plan != "blocked" {
				t.Errorf("budgets = %+v, want the plan blocked", r.Budgets)
			}
			if r.EstimatedSeconds != nil || !strings.HasPrefix(r.Verdict, "would block: "+string(BlockerPDBHeldByUnready)) {
				t.Errorf("estimate %v verdict %q, want no estimate and would block", r.EstimatedSeconds, r.Verdict)
			}
		})
	}
}

// The PLAN column never says "all at once" for pods the budget refuses:
// unready pods under IfHealthyBudget with the budget not met.
func TestPreflightPlanOfRefusedUnreadyPodsIsBlocked(t *testing.T) {
	pods := []corev1.Pod{rsPod("web-1-a", "web-1", "web", "node-a", false), rsPod("web-1-b", "web-1", "web", "node-b", true)}
	r := preflightOf(t, input(pods, []policyv1.PodDisruptionBudget{pdb("web", "web", 0, 1, 2, 2)}, node("node-b", false)))
	if len(r.Budgets) != 1 || r.Budgets[0].Plan != "blocked" {
		t.Fatalf("budgets = %+v, want the plan blocked", r.Budgets)
	}
}
