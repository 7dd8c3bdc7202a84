package main

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

// drainWatcher passes what the drain reports on to next (nil with -o json)
// and keeps the trackers of the nodes being evicted (several in a pool
// drain), so that a Ctrl-C can say how many evictions the drain still
// waits for.
type drainWatcher struct {
	next     drain.Observer
	mu       sync.Mutex
	trackers map[string]*drain.Tracker
	// cordoned are the nodes this drain cordoned or found cordoned, less
	// those it uncordoned after a failure (drain.CordonObserver): what a
	// second Ctrl-C leaves cordoned without a summary saying so.
	cordoned map[string]bool
}

// NodeCordoned implements drain.CordonObserver.
func (w *drainWatcher) NodeCordoned(node string, _ bool) { w.markCordoned(node, true) }

// NodeUncordoned implements drain.CordonObserver.
func (w *drainWatcher) NodeUncordoned(node string) { w.markCordoned(node, false) }

// markCordoned records node as cordoned (true) or uncordoned (false).
func (w *drainWatcher) markCordoned(node string, cordoned bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cordoned == nil {
		w.cordoned = map[string]bool{}
	}
	if cordoned {
		w.cordoned[node] = true
	} else {
		delete(w.cordoned, node)
	}
}

// PreflightReady implements drain.Observer.
func (w *drainWatcher) PreflightReady(r *drain.PreflightReport) {
	if w.next != nil {
		w.next.PreflightReady(r)
	}
}

// EvictionsStarted implements drain.Observer, keeping pods.
func (w *drainWatcher) EvictionsStarted(node string, pods *drain.Tracker) {
	w.mu.Lock()
	if w.trackers == nil {
		w.trackers = map[string]*drain.Tracker{}
	}
	w.trackers[node] = pods
	w.mu.Unlock()
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
	w.mu.Lock()
	delete(w.trackers, res.Node)
	w.mu.Unlock()
	if w.next != nil {
		w.next.NodeDone(res)
	}
}

// pool returns next as a PoolObserver, nil when it is none.
func (w *drainWatcher) pool() drain.PoolObserver {
	po, _ := w.next.(drain.PoolObserver)
	return po
}

// PoolPreflightReady implements drain.PoolObserver.
func (w *drainWatcher) PoolPreflightReady(r *drain.PoolPreflightReport) {
	if po := w.pool(); po != nil {
		po.PoolPreflightReady(r)
	}
}

// NodesCordoned implements drain.PoolObserver.
func (w *drainWatcher) NodesCordoned(nodes []*drain.NodeResult) {
	if po := w.pool(); po != nil {
		po.NodesCordoned(nodes)
	}
}

// NodePodChanged implements drain.PoolObserver.
func (w *drainWatcher) NodePodChanged(node string, p drain.PodProgress) {
	if po := w.pool(); po != nil {
		po.NodePodChanged(node, p)
	}
}

// PoolDone implements drain.PoolObserver.
func (w *drainWatcher) PoolDone(res *drain.PoolResult) {
	if po := w.pool(); po != nil {
		po.PoolDone(res)
	}
}

// inFlight counts the evictions in flight over the nodes being evicted;
// false when no node is.
func (w *drainWatcher) inFlight() (int, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, t := range w.trackers {
		n += t.InFlight()
	}
	return n, len(w.trackers) > 0
}

// stopNote says what an interrupted drain still waits for: the evictions
// in flight to return (none is started any more), then it re-reads the
// pods left and prints the summary.
func (w *drainWatcher) stopNote() stopNote {
	note := stopNote{Waiting: "the reads in flight, then the summary", Skipped: "the summary"}
	note.Left = w.leftCordoned()
	n, evicting := w.inFlight()
	if !evicting {
		return note
	}
	switch n {
	case 0:
		note.Waiting = "the summary (no eviction is in flight, and no new one starts)"
	case 1:
		note.Waiting = "1 eviction in flight (no new one starts), then the summary"
	default:
		note.Waiting = fmt.Sprintf("%d evictions in flight (no new one starts), then the summary", n)
	}
	return note
}

// leftCordoned names the nodes a second Ctrl-C leaves cordoned, with the
// command that undoes it; "" when none.
func (w *drainWatcher) leftCordoned() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var names []string
	for n := range w.cordoned {
		names = append(names, termsafe.Escape(n))
	}
	if len(names) == 0 {
		return ""
	}
	sort.Strings(names)
	list := strings.Join(names, " ")
	return fmt.Sprintf("left cordoned: %s (kubectl uncordon %s to undo; the pods still on a node: kubectl get pods -A --field-selector spec.nodeName=NODE)", list, list)
}
