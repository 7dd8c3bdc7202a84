package nodewatch

import (
	"context"
	"errors"
	"strings"
	"testing"

	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

func pdb(name, app string, current, desired int32) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", UID: types.UID("uid-pdb-" + name), Generation: 1},
		Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}},
		Status:     policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 1, CurrentHealthy: current, DesiredHealthy: desired},
	}
}

// budgetFollower is the drained watch's two workloads, each with an app
// label, as a follower that has seen them.
func budgetFollower(t *testing.T) *follower {
	f := newFollower(Config{}, []string{"n1"})
	f.w = drained(t)
	f.w.budgets = map[*rollout.Rollout][]*budgetTrack{}
	for _, r := range f.w.Workloads {
		f.workloadLabels[r] = map[string]string{"app": r.Workload.Name}
	}
	return f
}

// A budget followed over time: below its desiredHealthy from +1000 to
// +3500 ms by its own status is 2500 ms below, the fewest currentHealthy
// 0 of 1, and a risk naming the budget; the other workload's budget,
// never below, is 0 ms and no risk.
func TestBudgetBelowDesiredHealthyFromItsStatus(t *testing.T) {
	f := budgetFollower(t)
	f.budgetsListed(timelinetest.At(-500), []runtime.Object{pdb("web", "web", 1, 1), pdb("api", "api", 2, 1)}, true)
	f.budgetEvent(timelinetest.At(1000), watch.Modified, pdb("web", "web", 0, 1))
	f.budgetEvent(timelinetest.At(2000), watch.Modified, pdb("api", "api", 1, 1))
	f.budgetEvent(timelinetest.At(3500), watch.Modified, pdb("web", "web", 1, 1))
	v := ComputeWith(f.w, timeline.Options{})
	web, api := v.Workloads[0], v.Workloads[1]
	if b := web.Budgets; len(b) != 1 || b[0].BelowMs == nil || *b[0].BelowMs != 2500 || b[0].MinCurrentHealthy != 0 || b[0].MinDesiredHealthy != 1 || *b[0].BelowFromMs != 1000 || !web.Risk {
		t.Errorf("web's budget %+v, risk %v: want 2500 ms below from +1000, fewest 0 of 1, a risk", b, web.Risk)
	}
	if b := api.Budgets; len(b) != 1 || b[0].BelowMs == nil || *b[0].BelowMs != 0 || b[0].MinCurrentHealthy != 1 || b[0].Unknown != "" || api.Risk {
		t.Errorf("api's budget %+v, risk %v: want 0 ms below, fewest 1", b, api.Risk)
	}
	if !strings.Contains(v.Findings[0], "PodDisruptionBudget web below its desiredHealthy for 2500 ms, fewest currentHealthy 0 of 1") {
		t.Errorf("findings %q", v.Findings)
	}
}

// policy/v1: an empty selector ({}) covers every pod of the namespace, a
// null one none (PodDisruptionBudgetSpec.selector).
func TestBudgetSelectorEmptyAndNull(t *testing.T) {
	f := budgetFollower(t)
	all, none := pdb("all", "", 1, 1), pdb("none", "", 1, 1)
	all.Spec.Selector, none.Spec.Selector = &metav1.LabelSelector{}, nil
	f.budgetsListed(timelinetest.At(-500), []runtime.Object{all, none}, true)
	for _, r := range f.w.Workloads {
		if b := f.w.budgets[r]; len(b) != 1 || b[0].name != "all" {
			t.Errorf("%s's budgets %+v, want the empty selector's alone", r.Workload.Name, b)
		}
	}
}

// A budget whose status was not observed over part of the drain (its
// watch cut) is "unknown" and why, never 0 ms, and the verdict cannot
// tell; the budgets not watched at all (RBAC) say so per workload.
func TestBudgetNotObservedIsUnknown(t *testing.T) {
	f := budgetFollower(t)
	f.budgetsListed(timelinetest.At(-500), []runtime.Object{pdb("api", "api", 2, 1)}, true)
	f.gap(listwatch.Notice{Stream: streamBudgets, Recv: timelinetest.At(1000), Kind: listwatch.KindGapOpen, Reason: "watch connection closed"})
	f.gap(listwatch.Notice{Stream: streamBudgets, Recv: timelinetest.At(3000), Kind: listwatch.KindGapClose, Relisted: true})
	f.w.budgetGaps = f.budgetGaps
	v := ComputeWith(f.w, timeline.Options{})
	b := v.Workloads[1].Budgets
	if len(b) != 1 || b[0].BelowMs != nil || !strings.Contains(b[0].Unknown, "watch was cut from +1000 to +3000 ms") || !v.CannotTell || !v.Risk {
		t.Fatalf("api's budget %+v, verdict cannot tell %v risk %v", b, v.CannotTell, v.Risk)
	}

	f = budgetFollower(t)
	forbidden := apierrors.NewForbidden(policyv1.Resource("poddisruptionbudgets"), "", errors.New("RBAC"))
	if err := f.handle(context.Background(), listwatch.Notice{Stream: streamBudgets, Kind: listwatch.KindError, Err: forbidden}); err != nil {
		t.Fatal(err)
	}
	v = ComputeWith(f.w, timeline.Options{})
	if v.Workloads[0].BudgetsUnknown == "" || !v.CannotTell || !strings.Contains(strings.Join(v.Findings, "\n"), "cannot tell: the PodDisruptionBudgets could not be watched") {
		t.Errorf("workload %+v, findings %q", v.Workloads[0], v.Findings)
	}
}

// A Follow that failed reached no end: Watch.Ended stays empty, not
// "interrupted", which the verdict would read as a Ctrl-C.
func TestFailedFollowHasNoEnd(t *testing.T) {
	f := newFollower(Config{}, []string{"n1"})
	f.ended(context.Background(), 0)
	if f.w.Ended != "" {
		t.Errorf("Ended = %q after a failure; want none", f.w.Ended)
	}
}
