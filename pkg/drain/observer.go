package drain

// Observer is told what a Drainer does as it happens, the way
// k8s.io/kubectl/pkg/drain's Helper reports through
// OnPodDeletionOrEvictionStarted and OnPodDeletionOrEvictionFinished. The
// library itself prints nothing: a renderer (text, live progress) or the
// command (the Ctrl-C message, JSON) implements Observer.
//
// PodChanged is called from the library's eviction goroutines, several at a
// time; the other methods from the goroutine that called Drain.
type Observer interface {
	// PreflightReady is called with each node's preflight before anything
	// is changed, dry runs included.
	PreflightReady(r *PreflightReport)
	// EvictionsStarted is called once the node is cordoned and its pods are
	// about to be evicted; pods records their progress until NodeDone.
	EvictionsStarted(node string, pods *Tracker)
	// PodChanged is called with a copy of a pod's progress each time its
	// state or cause changes.
	PodChanged(p PodProgress)
	// NodeDone is called once per node with its final result, whatever the
	// outcome (an API failure too: Drain then also returns the error).
	NodeDone(res *NodeResult)
}

// CordonObserver is an Observer that is also told, as it happens, of each
// node this drain cordoned or found cordoned, and of each it uncordoned
// after a failure: the command names the nodes left cordoned when a second
// Ctrl-C exits without the summary. Its methods are called from the
// goroutines draining the nodes, several at a time in a pool.
type CordonObserver interface {
	// NodeCordoned is called once node's cordon succeeded: byUs when this
	// drain's patch set spec.unschedulable, false when it was set already.
	NodeCordoned(node string, byUs bool)
	// NodeUncordoned is called once this drain set node schedulable again
	// (--uncordon-on-failure).
	NodeUncordoned(node string)
}

// cordonObserver returns the Drainer's Observer as a CordonObserver, a
// no-op when it is none.
func (d *Drainer) cordonObserver() CordonObserver {
	if co, ok := d.Observer.(CordonObserver); ok {
		return co
	}
	return nopObserver{}
}

// nopObserver is the Observer of a Drainer that has none.
type nopObserver struct{}

func (nopObserver) PreflightReady(*PreflightReport)   {}
func (nopObserver) EvictionsStarted(string, *Tracker) {}
func (nopObserver) PodChanged(PodProgress)            {}
func (nopObserver) NodeDone(*NodeResult)              {}
func (nopObserver) NodeCordoned(string, bool)         {}
func (nopObserver) NodeUncordoned(string)             {}
