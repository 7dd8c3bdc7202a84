package preflight

import (
	"strings"
	"testing"
	"time"

	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// With --delete-after a budget that refuses its pods does not block: the
// preflight says, naming the pods and the budget, that they will be
// deleted past it after the duration, and the verdict is not "would
// block"; a pod under two budgets (a 500, never overridden) still blocks.
func TestPreflightDeleteAfterSaysWhatHappensToARefusingBudget(t *testing.T) {
	p := pdb("web", "web", 0, 3, 3, 3)
	p.Spec.MinAvailable = nil
	p.Spec.MaxUnavailable = ptr.To(intstr.FromInt32(0))
	in := input(threeWebPods(true), []policyv1.PodDisruptionBudget{p}, node("node-b", false))
	in.Flags.DeleteAfter = 5 * time.Second
	r := preflightOf(t, in)
	if len(r.Blockers) != 0 {
		t.Fatalf("blockers = %v, want none: --delete-after overrides the budget", kinds(r.Blockers))
	}
	w := has(r.Warnings, BlockerPDBAllowsNone)
	if w == nil || !strings.HasPrefix(w.Message, "--delete-after 5s: pod(s) shop/web-") ||
		!strings.Contains(w.Message, "will be deleted past PodDisruptionBudget shop/web 5s after the node's evictions start") {
		t.Fatalf("warnings = %+v, want pdb-allows-none saying the pods will be deleted past shop/web after 5s", r.Warnings)
	}
	if !strings.HasPrefix(r.Verdict, "would succeed: ") || !strings.Contains(r.Verdict, "deleted past their budget") {
		t.Errorf("verdict = %q, want would succeed, saying which are deleted past their budget", r.Verdict)
	}
	if r.Budgets[0].Plan != "deleted past the budget after 5s (--delete-after)" {
		t.Errorf("plan = %q", r.Budgets[0].Plan)
	}

	second := pdb("web-too", "web", 1, 3, 2, 3)
	in = input(threeWebPods(true), []policyv1.PodDisruptionBudget{p, second}, node("node-b", false))
	in.Flags.DeleteAfter = 5 * time.Second
	if r = preflightOf(t, in); has(r.Blockers, BlockerMultiplePDBs) == nil || !strings.HasPrefix(r.Verdict, "would block: ") {
		t.Errorf("two budgets: blockers %v, verdict %q; want multiple-pdbs blocking", kinds(r.Blockers), r.Verdict)
	}
}
