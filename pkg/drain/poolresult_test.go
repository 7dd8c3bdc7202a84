package drain

import (
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

func TestPoolNodeResultAndTally(t *testing.T) {
	yes := &NodeAfter{Known: true, Unschedulable: true}
	drained := newPoolNode(&NodeResult{Node: "a", Outcome: OutcomeDrained, After: yes, Pods: []PodProgress{
		{State: StateGone, Accepted: true}, {State: StateGone, Accepted: true}}})
	partly := newPoolNode(&NodeResult{Node: "b", Outcome: OutcomeInterrupted, After: yes, Pods: []PodProgress{
		{State: StateTerminating, Accepted: true}, {State: StateStopped},
		{State: StateGone, Accepted: true, DeletedPastBudget: true}}})
	cut := newPoolNode(&NodeResult{Node: "c", Outcome: OutcomeInterrupted, After: yes, Pods: []PodProgress{
		{State: StateGone, lost: true}, {State: StateStopped}}})
	untouched := newPoolNode(&NodeResult{Node: "d", Outcome: OutcomeInterrupted, Pods: []PodProgress{
		{State: StateStopped}, {State: StateGone, GoneBy: GoneByOther}, {State: StateUnknown}}})
	gone := newPoolNode(&NodeResult{Node: "e", Outcome: OutcomeNodeGone, After: yes})
	for _, c := range []struct {
		n             *PoolNode
		result        Outcome
		evicted, left int
		deleted       int // past the budget, by --delete-after: no eviction
		cordoned      bool
	}{
		{drained, OutcomeDrained, 2, 0, 0, true},
		{partly, OutcomePartlyDrained, 1, 2, 1, true},
		{cut, OutcomePartlyDrained, 0, 1, 0, true},
		{untouched, OutcomeUntouched, 0, 1, 0, false},
		{gone, OutcomeNodeGone, 0, 0, 0, false},
	} {
		if c.n.Result != c.result || c.n.Evicted != c.evicted || c.n.Left != c.left || c.n.DeletedPastBudget != c.deleted ||
			(c.n.StaysCordoned != nil) != c.cordoned {
			t.Errorf("node %s: %s, evicted %d, left %d, deleted %d, stays cordoned %v; want %s, %d, %d, %d, known %v",
				c.n.Node, c.n.Result, c.n.Evicted, c.n.Left, c.n.DeletedPastBudget, c.n.StaysCordoned,
				c.result, c.evicted, c.left, c.deleted, c.cordoned)
		}
	}
	r := &PoolResult{InitialPods: 4, Nodes: []*PoolNode{drained, partly}}
	r.tally(true)
	if r.Outcome != OutcomeInterrupted || r.Evictions != 3 || r.DeletedPastBudget != 1 || r.EvictionsPerPod != 0.75 {
		t.Errorf("tally: %s, %d evictions, %d deleted, %.2f per pod; want interrupted, 3, 1, 0.75",
			r.Outcome, r.Evictions, r.DeletedPastBudget, r.EvictionsPerPod)
	}
	r = &PoolResult{Nodes: []*PoolNode{drained}}
	if r.tally(false); r.Outcome != OutcomeDrained {
		t.Errorf("all drained: %s", r.Outcome)
	}
	r = &PoolResult{Nodes: []*PoolNode{drained, gone}}
	if r.tally(false); r.Outcome != OutcomeNotDrained {
		t.Errorf("a node gone: %s, want %s", r.Outcome, OutcomeNotDrained)
	}
	r = &PoolResult{Outcome: OutcomeRefused, Nodes: []*PoolNode{untouched}}
	if r.tally(false); r.Outcome != OutcomeRefused {
		t.Errorf("refused kept: %s", r.Outcome)
	}
	r = &PoolResult{Error: "boom", Nodes: []*PoolNode{drained}}
	if r.tally(true); r.Outcome != OutcomeError {
		t.Errorf("API error: %s", r.Outcome)
	}
}

// A pool node the drain never started (a refusal, a dry run) has no read
// at the end: its LEFT is what its preflight found on it, never 0 while
// its pods are there.
func TestPoolNodeNeverStartedCountsItsPreflightsPods(t *testing.T) {
	r := &preflight.Report{Node: "a",
		Evict:       []preflight.OwnerGroup{{Pods: []preflight.PodEntry{{Name: "web-1"}, {Name: "web-2"}}}},
		Terminating: []preflight.TerminatingPod{{}},
		Blockers: []preflight.Issue{{Kind: preflight.BlockerNeedsForce, Pod: "shop/bare", Refuses: true},
			{Kind: preflight.BlockerNeedsDeleteEmptyDirData, Pod: "shop/bare", Refuses: true},
			{Kind: preflight.BlockerPDBAllowsNone, PDB: "shop/web"}}}
	for _, outcome := range []Outcome{OutcomeRefused, OutcomeDryRun} {
		n := newPoolNode(&NodeResult{Node: "a", Outcome: outcome, Preflight: r, Pods: []PodProgress{}})
		if n.Left != 4 || n.Result != OutcomeUntouched {
			t.Errorf("%s: left %d, result %s; want 4 (2 to evict, 1 terminating, 1 refused), untouched", outcome, n.Left, n.Result)
		}
	}
}
