package main

import (
	"fmt"
	"sync/atomic"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

// drainWatcher passes what the drain reports on to next (nil with -o json)
// and keeps the tracker of the node being evicted, so that a Ctrl-C can say
// how many evictions the drain still waits for.
type drainWatcher struct {
	next    drain.Observer
	tracker atomic.Pointer[drain.Tracker]
}

// PreflightReady implements drain.Observer.
func (w *drainWatcher) PreflightReady(r *drain.PreflightReport) {
	if w.next != nil {
		w.next.PreflightReady(r)
	}
}

// EvictionsStarted implements drain.Observer, keeping pods.
func (w *drainWatcher) EvictionsStarted(node string, pods *drain.Tracker) {
	w.tracker.Store(pods)
	if w.next != nil {
		w.next.EvictionsStarted(node, pods)
	}
}

// PodChanged implements drain.Observer.
func (w *drainWatcher) PodChanged(p drain.PodProgress) {
	if w.next != nil {
		w.next.PodChanged(p)
	}
}

// NodeDone implements drain.Observer.
func (w *drainWatcher) NodeDone(res *drain.NodeResult) {
	w.tracker.Store(nil)
	if w.next != nil {
		w.next.NodeDone(res)
	}
}

// stopNote says what an interrupted drain still waits for: the evictions
// in flight to return (none is started any more), then it re-reads the
// pods left and prints the summary.
func (w *drainWatcher) stopNote() stopNote {
	note := stopNote{Waiting: "the reads in flight, then the summary", Skipped: "the summary"}
	t := w.tracker.Load()
	if t == nil {
		return note
	}
	switch n := t.InFlight(); n {
	case 0:
		note.Waiting = "the summary (no eviction is in flight, and no new one starts)"
	case 1:
		note.Waiting = "1 eviction in flight (no new one starts), then the summary"
	default:
		note.Waiting = fmt.Sprintf("%d evictions in flight (no new one starts), then the summary", n)
	}
	return note
}
