package nodewatch

import (
	"slices"
	"time"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// streamBudgets is the name of the PodDisruptionBudgets' watch.
const streamBudgets = timeline.StreamBudgets

// budgetSample is one status of a PodDisruptionBudget as the disruption
// controller wrote it: status.currentHealthy (ready pods not being
// deleted) and status.desiredHealthy.
type budgetSample struct {
	recv             time.Time
	current, desired int32
	initial          bool
	// stale: the controller had not computed the status for the budget's
	// spec (observedGeneration behind); deleted: the budget is gone.
	stale, deleted bool
}

// budgetTrack is one PodDisruptionBudget's status over the watch, from
// the one cluster-wide watch of budgets.
type budgetTrack struct {
	namespace, name string
	selector        labels.Selector
	samples         []budgetSample
}

// budgetsListed records a List of the budgets (the first, or a re-list
// after a gap): a budget missing from it was deleted.
func (f *follower) budgetsListed(recv time.Time, list []runtime.Object, initial bool) {
	seen := map[types.UID]bool{}
	for _, o := range list {
		if b, ok := o.(*policyv1.PodDisruptionBudget); ok {
			seen[b.UID] = true
			f.budgetObserved(recv, b, initial)
		}
	}
	for uid, tr := range f.budgetTracks {
		if !seen[uid] {
			tr.end(recv)
		}
	}
}

// budgetEvent records one change of a budget.
func (f *follower) budgetEvent(recv time.Time, typ watch.EventType, b *policyv1.PodDisruptionBudget) {
	if typ == watch.Deleted {
		if tr := f.budgetTracks[b.UID]; tr != nil {
			tr.end(recv)
		}
		return
	}
	f.budgetObserved(recv, b, false)
}

// budgetObserved appends the budget's status when it changed, and matches
// the budget to the workloads it covers. A status the controller has not
// computed for the budget's spec yet (observedGeneration behind) is not a
// fact about its pods: it is recorded as not observed.
func (f *follower) budgetObserved(recv time.Time, b *policyv1.PodDisruptionBudget, initial bool) {
	tr := f.budgetTracks[b.UID]
	if tr == nil {
		sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector)
		if err != nil {
			sel = labels.Nothing()
		}
		tr = &budgetTrack{namespace: b.Namespace, name: b.Name, selector: sel}
		f.budgetTracks[b.UID] = tr
		for _, r := range f.w.Workloads {
			f.matchBudget(r, tr)
		}
	}
	s := budgetSample{recv: recv, current: b.Status.CurrentHealthy, desired: b.Status.DesiredHealthy, initial: initial,
		stale: b.Status.ObservedGeneration < b.Generation}
	if n := len(tr.samples); n > 0 {
		last := tr.samples[n-1]
		if last.current == s.current && last.desired == s.desired && last.stale == s.stale && !last.deleted {
			return
		}
	}
	tr.samples = append(tr.samples, s)
}

// end marks the budget gone (deleted, or missing from a re-list).
func (tr *budgetTrack) end(recv time.Time) {
	if n := len(tr.samples); n > 0 && tr.samples[n-1].deleted {
		return
	}
	tr.samples = append(tr.samples, budgetSample{recv: recv, deleted: true})
}

// matchBudget adds the budget to the workload's when its selector matches
// the workload's pods' labels, as the disruption controller matches the
// running pods (not the template). In policy/v1 a null selector matches
// no pod (metav1.LabelSelectorAsSelector gives labels.Nothing) and an
// empty one ({}) every pod of the namespace.
func (f *follower) matchBudget(r *rollout.Rollout, tr *budgetTrack) {
	set, ok := f.workloadLabels[r]
	if !ok || r.Workload.Namespace != tr.namespace || !tr.selector.Matches(set) || slices.Contains(f.w.budgets[r], tr) {
		return
	}
	f.w.budgets[r] = append(f.w.budgets[r], tr)
}
