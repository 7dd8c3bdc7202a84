package drain

// PoolObserver is told what a pool drain (Drainer.DrainPool) does, beyond
// what an Observer hears of each node. A Drainer whose Observer is not a
// PoolObserver tells its Observer the per-node events only.
//
// With more than one node drained at a time, EvictionsStarted, NodeDone and
// NodePodChanged come from several goroutines at once.
type PoolObserver interface {
	Observer
	// PoolPreflightReady is called with the pool's preflight before
	// anything is changed, dry runs included; Observer.PreflightReady is
	// not called in a pool drain.
	PoolPreflightReady(r *PoolPreflightReport)
	// NodesCordoned is called once every node of the pool was cordoned (or
	// found cordoned, or gone), before the first eviction; each result
	// says CordonedByUs.
	NodesCordoned(nodes []*NodeResult)
	// NodePodChanged is Observer.PodChanged with the node of the pod; a
	// pool drain calls it instead of PodChanged.
	NodePodChanged(node string, p PodProgress)
	// PoolDone is called once with the pool's result, whatever the outcome.
	PoolDone(res *PoolResult)
}

// poolObserver returns the Drainer's PoolObserver, an adapter passing the
// per-node events on when its Observer is not one.
func (d *Drainer) poolObserver() PoolObserver {
	if po, ok := d.Observer.(PoolObserver); ok {
		return po
	}
	return poolAdapter{d.observer()}
}

// poolAdapter is the PoolObserver of an Observer that knows no pool.
type poolAdapter struct{ Observer }

func (poolAdapter) PoolPreflightReady(*PoolPreflightReport)  {}
func (poolAdapter) NodesCordoned([]*NodeResult)              {}
func (a poolAdapter) NodePodChanged(_ string, p PodProgress) { a.PodChanged(p) }
func (poolAdapter) PoolDone(*PoolResult)                     {}
