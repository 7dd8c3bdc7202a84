package drain

import (
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// Events is told what a Drainer does as it happens, the way
// k8s.io/kubectl/pkg/drain's Helper reports through its
// OnPodDeletionOrEviction callbacks: every
// field is optional, a nil one tells nobody, and the zero Events tells
// nobody anything. The library itself prints nothing: a renderer (text,
// live progress) or the command (the Ctrl-C message, JSON) sets the fields
// it needs.
//
// With more than one node drained at a time (DrainPool), NodeCordoned,
// NodeUncordoned, EvictionsStarted, PodChanged and NodeDone come from
// several goroutines at once; PodChanged from the goroutines of each
// pod's eviction in any case.
type Events struct {
	// PreflightReady is called with the preflight of a node that Drain
	// drains, before anything is changed, dry runs included.
	PreflightReady func(r *preflight.Report)
	// PoolPreflightReady is called with the preflight of DrainPool's
	// nodes, before anything is changed, dry runs included (PreflightReady
	// is not called in a pool drain).
	PoolPreflightReady func(r *preflight.PoolReport)
	// NodeCordoned is called once node's cordon succeeded: byUs when this
	// drain's patch set spec.unschedulable, false when it was set already.
	NodeCordoned func(node string, byUs bool)
	// NodesCordoned is called once every node of a pool was cordoned (or
	// found cordoned, or gone), before the first eviction; each result
	// says CordonedByUs.
	NodesCordoned func(nodes []*NodeResult)
	// EvictionsStarted is called once the node is cordoned and its pods are
	// about to be evicted, with the progress of each (pending), sorted by
	// namespace and name; PodChanged then tells each change until
	// NodeDone. The times in PodProgress (StartedSeconds) count from this
	// call.
	EvictionsStarted func(node string, pods []PodProgress)
	// SurgeDone is called once --surge's rollout of a Deployment on node
	// ended, before the node's evictions.
	SurgeDone func(node string, res SurgeResult)
	// PodChanged is called with a copy of the progress of a pod on node
	// each time its state or cause changes.
	PodChanged func(node string, p PodProgress)
	// BudgetOverridden is called just before --delete-after deletes a pod
	// whose PodDisruptionBudget still refused its eviction
	// (Drainer.DeleteAfter).
	BudgetOverridden func(o BudgetOverride)
	// LBWaiting is called when, its pods gone, a node labelled out of
	// external load balancers (--exclude-from-lb) waits for their
	// deregistration delay before it is reported drained.
	LBWaiting func(w LBWait)
	// CompletionWaiting is called when, its evictions done, node waits for
	// its pods labelled wait-completed (preflight.Report.WaitCompleted,
	// "namespace/name") to complete before it is reported drained.
	CompletionWaiting func(node string, pods []string)
	// NodeUncordoned is called once this drain set node schedulable again
	// (--uncordon-on-failure).
	NodeUncordoned func(node string)
	// NodeDone is called once per node with its final result, whatever the
	// outcome (an API failure too: Drain then also returns the error).
	NodeDone func(res *NodeResult)
	// PoolDone is called once with a pool's result, whatever the outcome.
	PoolDone func(res *PoolResult)
}

// call calls f with v unless f, an Events field, is nil.
func call[T any](f func(T), v T) {
	if f != nil {
		f(v)
	}
}

// call2 is call for the Events fields of two arguments.
func call2[T, U any](f func(T, U), v T, u U) {
	if f != nil {
		f(v, u)
	}
}
