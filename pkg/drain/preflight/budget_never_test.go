package preflight

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// stsPod is a Ready pod of StatefulSet sts with its pod-name label.
func stsPod(name, sts, nodeName string) corev1.Pod {
	p := rsPod(name, sts, "db", nodeName, true)
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: sts, UID: types.UID("uid-" + sts), Controller: ptr.To(true)}}
	p.Labels["statefulset.kubernetes.io/pod-name"] = name
	return p
}

func withCondition(p policyv1.PodDisruptionBudget, reason, msg string) policyv1.PodDisruptionBudget {
	p.Status.Conditions = []metav1.Condition{{Type: policyv1.DisruptionAllowedCondition, Status: metav1.ConditionFalse, Reason: reason, Message: msg}}
	return p
}

// Budgets whose own status says they cannot allow a disruption by
// themselves are blockers that say why in the disruption controller's
// terms, never a plan of waves ("one after another") and an estimate.
func TestPreflightBudgetThatNeverAllows(t *testing.T) {
	web := []corev1.Pod{rsPod("web-1-a", "web-1", "web", "node-a", true), rsPod("web-1-b", "web-1", "web", "node-b", true)}
	empty := withCondition(pdb("web", "web", 0, 2, 0, 0), policyv1.InsufficientPodsReason, "")
	empty.Spec.MinAvailable = nil
	// As the disruption controller writes it: no observedGeneration.
	syncFailed := withCondition(pdb("web", "web", 0, 0, 0, 0), policyv1.SyncFailedReason, "widgets.example.org does not implement the scale subresource")
	syncFailed.Generation = 1
	db := []corev1.Pod{stsPod("db-0", "db", "node-a"), stsPod("db-1", "db", "node-b"), stsPod("db-2", "db", "node-b")}
	partial := pdb("db-0", "db", 0, 1, 2, 3) // maxUnavailable 1 over db-0 alone: expectedPods is the StatefulSet's 3
	partial.Spec.MinAvailable, partial.Spec.MaxUnavailable = nil, ptr.To(intstr.FromInt32(1))
	partial.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"statefulset.kubernetes.io/pod-name": "db-0"}}
	recovering := pdb("web", "web", 0, 1, 1, 3) // a pod still to come: it may rise
	recovering.Spec.MinAvailable, recovering.Spec.MaxUnavailable = nil, ptr.To(intstr.FromInt32(2))
	for _, c := range []struct {
		name  string
		pods  []corev1.Pod
		pdb   policyv1.PodDisruptionBudget
		never bool
		want  []string
	}{
		{"neither minAvailable nor maxUnavailable", web, empty, true,
			[]string{"expectedPods 0, desiredHealthy 0, disruptionsAllowed 0, condition DisruptionAllowed=False (InsufficientPods)", "sets neither minAvailable nor maxUnavailable", "waiting does not help"}},
		{"status cannot be computed", web, syncFailed, true,
			[]string{"reason SyncFailed: widgets.example.org does not implement the scale subresource", "waiting does not help"}},
		{"maxUnavailable over part of a StatefulSet", db, partial, true,
			[]string{"expectedPods 3", "desiredHealthy 2", "selects 1 pod(s) and at most 0 more can come"}},
		{"a pod still to come", web, recovering, false, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := preflightOf(t, input(c.pods, []policyv1.PodDisruptionBudget{c.pdb}, node("node-b", false)))
			b := has(r.Blockers, BlockerPDBNeverAllows)
			if !c.never {
				if b != nil {
					t.Fatalf("blocker %+v for a budget that can recover", b)
				}
				return
			}
			if b == nil {
				t.Fatalf("blockers %v, warnings %v: want %s", kinds(r.Blockers), kinds(r.Warnings), BlockerPDBNeverAllows)
			}
			for _, w := range c.want {
				if !strings.Contains(b.Message, w) {
					t.Errorf("message %q lacks %q", b.Message, w)
				}
			}
			if has(r.Warnings, WarningPDBSequential) != nil || len(r.Budgets) != 1 || r.Budgets[0].Plan != "blocked" {
				t.Errorf("warnings %v, budgets %+v: want the plan blocked and no waves", kinds(r.Warnings), r.Budgets)
			}
		})
	}
}
