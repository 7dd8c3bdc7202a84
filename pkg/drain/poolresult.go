package drain

import (
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// PoolResult is what a pool drain did: its preflight, each node, and the
// count that matters across nodes, evictions per pod.
type PoolResult struct {
	Preflight *preflight.PoolReport `json:"preflight"`
	// Outcome is OutcomeDrained (every node drained), OutcomeDryRun,
	// OutcomeRefused (nothing changed), OutcomeInterrupted, OutcomeError
	// (the API failed us) or "not-drained" (a node not drained).
	Outcome Outcome     `json:"outcome"`
	Nodes   []*PoolNode `json:"nodes"`
	// InitialPods counts the pods the preflight found to evict on the pool.
	InitialPods int `json:"initialPods"`
	// Evictions counts the evictions (deletes with --disable-eviction) the
	// API server accepted, across nodes; not the pods --delete-after
	// deleted past their budget, which DeletedPastBudget counts.
	Evictions int `json:"evictions"`
	// DeletedPastBudget counts the pods --delete-after deleted although
	// their PodDisruptionBudget still refused their eviction, across nodes.
	DeletedPastBudget int `json:"deletedPastBudget"`
	// EvictionsPerPod is Evictions / InitialPods (0 without pods).
	EvictionsPerPod float64 `json:"evictionsPerPod"`
	// EvictedAgain are the pods ("namespace/name") this drain evicted that
	// were created after it cordoned the pool: replacements of pods it
	// evicted that still landed on a pool node (a cordon undone, a pod
	// tolerating unschedulable nodes). Each is a pod evicted more than once.
	EvictedAgain []string `json:"evictedAgain"`
	// DurationSeconds is the pool's wall time, preflight included.
	DurationSeconds float64 `json:"durationSeconds"`
	// Error is the API error that ended the pool drain, when one did.
	Error string `json:"error,omitempty"`

	start time.Time
}

// PoolNode is one node of a pool drain: its NodeResult (outcome, pods,
// cordon) plus what the pool summary shows of it.
type PoolNode struct {
	*NodeResult
	// Result is what the pool drain did to the node: OutcomeDrained,
	// OutcomePartlyDrained, OutcomeUntouched or OutcomeNodeGone.
	Result Outcome `json:"result"`
	// Evicted counts the node's pods whose eviction was accepted.
	Evicted int `json:"evicted"`
	// DeletedPastBudget counts the node's pods --delete-after deleted past
	// their PodDisruptionBudget (their evictions were refused, none
	// accepted).
	DeletedPastBudget int `json:"deletedPastBudget"`
	// Left counts the node's pods still there at the end (terminating
	// ones included), from the read at the end; for a node the drain
	// never started (a refusal, a dry run), which has no such read, the
	// pods its preflight found to evict, already terminating or refused.
	Left int `json:"left"`
	// StaysCordoned is the node's spec.unschedulable read at the end; nil
	// when that read failed or the node is gone.
	StaysCordoned *bool `json:"staysCordoned"`
}

// OneNode is the result of one node's Drain (res, err) in the shape of a
// pool's, so that a report has one shape whatever the number of nodes:
// Nodes holds res with its summary, the counts are its own, and Outcome
// reads as a pool's (drained, dry-run, refused, interrupted, error,
// not-drained), while res.Outcome keeps the node's own (blocked,
// timed-out). Preflight holds the node's (nil when the drain ended
// before it), with no pool-level blocker and no pool estimate.
// interrupted is true when the command's context ended.
func OneNode(res *NodeResult, err error, interrupted bool) *PoolResult {
	out := &PoolResult{Nodes: []*PoolNode{newPoolNode(res)}, EvictedAgain: []string{}, DurationSeconds: res.DurationSeconds}
	if r := res.Preflight; r != nil {
		out.InitialPods = r.PodCount()
		out.Preflight = &preflight.PoolReport{Nodes: []*preflight.Report{r}, Blockers: []preflight.Issue{}, Warnings: []preflight.Issue{},
			DrainTogether: [][]string{{res.Node}}, MaxConcurrentNodes: 1, Verdict: r.Verdict}
	}
	if res.Outcome == OutcomeDryRun || res.Outcome == OutcomeRefused {
		out.Outcome = res.Outcome
	}
	if err != nil {
		out.Error = err.Error()
	}
	out.tally(interrupted)
	return out
}

// newPoolNode sums up res for the pool summary.
func newPoolNode(res *NodeResult) *PoolNode {
	n := &PoolNode{NodeResult: res}
	gone, unknown := 0, 0
	touched := false // an eviction of ours was accepted, or may have been
	for _, p := range res.Pods {
		switch {
		case p.Accepted && p.DeletedPastBudget:
			n.DeletedPastBudget++
		case p.Accepted:
			n.Evicted++
		}
		touched = touched || p.Accepted || p.lost
		switch p.State {
		case StateGone:
			gone++
		case StateUnknown:
			unknown++
		}
	}
	n.Left = len(res.Pods) - gone - unknown
	if notStarted(res) {
		n.Left = preflightLeft(res.Preflight)
	}
	if res.After != nil && res.After.Known {
		n.StaysCordoned = &res.After.Unschedulable
	}
	switch {
	case res.Outcome == OutcomeNodeGone:
		n.Result, n.StaysCordoned = OutcomeNodeGone, nil
	case res.Outcome == OutcomeDrained:
		n.Result = OutcomeDrained
	case !touched:
		n.Result = OutcomeUntouched
	default:
		n.Result = OutcomePartlyDrained
	}
	return n
}

// notStarted reports whether res is of a node whose pods were never
// listed for the drain: nothing was changed, and only its preflight says
// what is on it.
func notStarted(res *NodeResult) bool {
	return res.Preflight != nil && (res.Outcome == OutcomeRefused || res.Outcome == OutcomeDryRun)
}

// preflightLeft counts the pods r found on its node that the drain would
// remove or wait for: to evict, already terminating, and each pod a
// refusing blocker names (needs --force, ...), none of which went.
func preflightLeft(r *preflight.Report) int {
	n := r.PodCount() + len(r.Terminating)
	refused := map[string]bool{}
	for _, b := range r.Blockers {
		if b.Refuses && b.Pod != "" && !refused[b.Pod] {
			refused[b.Pod] = true
			n++
		}
	}
	return n
}

// tally sets the pool's counts and, unless it was a dry run or a refusal,
// its outcome from its nodes; interrupted is true when the command's
// context ended.
func (r *PoolResult) tally(interrupted bool) {
	r.Evictions, r.DeletedPastBudget = 0, 0
	all := len(r.Nodes) > 0
	for _, n := range r.Nodes {
		r.Evictions += n.Evicted
		r.DeletedPastBudget += n.DeletedPastBudget
		all = all && n.Result == OutcomeDrained
	}
	if r.InitialPods > 0 {
		r.EvictionsPerPod = float64(r.Evictions) / float64(r.InitialPods)
	}
	switch {
	case r.Outcome == OutcomeDryRun || r.Outcome == OutcomeRefused:
		// Nothing was changed: the preflight said it all.
	case r.Error != "":
		r.Outcome = OutcomeError
	case all:
		r.Outcome = OutcomeDrained
	case interrupted:
		r.Outcome = OutcomeInterrupted
	default:
		r.Outcome = OutcomeNotDrained
	}
}
