package preflight

import (
	"fmt"
	"strings"
	"time"
)

// overriddenByDeleteAfter are the blockers of a budget that refuses
// evictions with its 429 (a DisruptionBudget cause): the refusals
// --delete-after overrides. A pod under two budgets is refused with a
// 500, which it never overrides (multiple-pdbs stays a blocker).
var overriddenByDeleteAfter = map[IssueKind]bool{
	BlockerPDBAllowsNone: true, BlockerPDBNeverAllows: true, BlockerPDBHeldByUnready: true,
	BlockerPDBNoRoom: true, BlockerUnreadyPod: true,
}

// deleteAfterPlanPrefix starts the Plan of a budget whose pods
// --delete-after deletes past it.
const deleteAfterPlanPrefix = "deleted past the budget after "

// deleteAfterPlan turns the blockers planBudget added to r for budget
// (those from index from on) that --delete-after overrides into warnings
// saying what will happen: its pods on the node deleted past the budget
// after deleteAfter, each with its own grace period, named with the
// budget. It returns the wait that forces (deleteAfter), 0 when nothing
// was overridden.
func deleteAfterPlan(r *Report, from int, budget *BudgetEntry, deleteAfter time.Duration) time.Duration {
	kept, overridden := r.Blockers[:from], false
	for _, b := range r.Blockers[from:] {
		if !overriddenByDeleteAfter[b.Kind] {
			kept = append(kept, b)
			continue
		}
		overridden = true
		b.Message = fmt.Sprintf("--delete-after %s: pod(s) %s will be deleted past PodDisruptionBudget %s %s after "+
			"the node's evictions start, each with its own grace period, unless the budget lets them go by then; "+
			"the budget refuses them now: %s", deleteAfter, strings.Join(qualified(budget), ", "), b.PDB, deleteAfter, b.Message)
		r.Warnings = append(r.Warnings, b)
	}
	r.Blockers = kept
	if !overridden {
		return 0
	}
	budget.Plan = deleteAfterPlanPrefix + deleteAfter.String() + " (--delete-after)"
	return deleteAfter
}

// qualified names budget's pods on the node "namespace/name".
func qualified(budget *BudgetEntry) []string {
	out := make([]string, len(budget.PodsOnNode))
	for i, p := range budget.PodsOnNode {
		out[i] = budget.Namespace + "/" + p
	}
	return out
}

// deletedPastBudget counts the pods of r's budgets --delete-after will
// delete past them, for the verdict.
func deletedPastBudget(r *Report) int {
	n := 0
	for _, b := range r.Budgets {
		if strings.HasPrefix(b.Plan, deleteAfterPlanPrefix) {
			n += len(b.PodsOnNode)
		}
	}
	return n
}
