package main

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

// drainWatcher keeps, as the drain's Events tell it (events), the
// progress of the pods of the nodes being evicted (several in a pool
// drain), so that a Ctrl-C can say how many evictions the drain still
// waits for, and the nodes cordoned.
type drainWatcher struct {
	mu sync.Mutex
	// evicting are the pods of each node being evicted, by "namespace/name".
	evicting map[string]map[string]drain.PodProgress
	// cordoned are the nodes this drain cordoned or found cordoned, less
	// those it uncordoned after a failure (Events.NodeCordoned and
	// NodeUncordoned): what a second Ctrl-C leaves cordoned without a
	// summary saying so.
	cordoned map[string]bool
}

// newDrainWatcher is the watcher of a drain that has not started.
func newDrainWatcher() *drainWatcher {
	return &drainWatcher{evicting: map[string]map[string]drain.PodProgress{}, cordoned: map[string]bool{}}
}

// NodeCordoned records node as cordoned (drain.Events.NodeCordoned).
func (w *drainWatcher) NodeCordoned(node string, _ bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.cordoned[node] = true
}

// NodeUncordoned records node as uncordoned (drain.Events.NodeUncordoned).
func (w *drainWatcher) NodeUncordoned(node string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.cordoned, node)
}

// EvictionsStarted keeps pods, the progress of node's pods.
func (w *drainWatcher) EvictionsStarted(node string, pods []drain.PodProgress) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.evicting[node] = map[string]drain.PodProgress{}
	for _, p := range pods {
		w.evicting[node][p.Namespace+"/"+p.Name] = p
	}
}

// PodChanged keeps the progress of a pod of a node being evicted.
func (w *drainWatcher) PodChanged(node string, p drain.PodProgress) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if pods := w.evicting[node]; pods != nil {
		pods[p.Namespace+"/"+p.Name] = p
	}
}

// NodeDone forgets the pods of the node res is of.
func (w *drainWatcher) NodeDone(res *drain.NodeResult) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.evicting, res.Node)
}

// events returns view with w told, before view, of each node cordoned,
// uncordoned, being evicted and done.
func (w *drainWatcher) events(view drain.Events) drain.Events {
	ev := view
	ev.NodeCordoned = then2(w.NodeCordoned, view.NodeCordoned)
	ev.NodeUncordoned = then(w.NodeUncordoned, view.NodeUncordoned)
	ev.EvictionsStarted = then2(w.EvictionsStarted, view.EvictionsStarted)
	ev.PodChanged = then2(w.PodChanged, view.PodChanged)
	ev.NodeDone = then(w.NodeDone, view.NodeDone)
	return ev
}

// then returns a callback calling first, then next unless it is nil.
func then[T any](first, next func(T)) func(T) {
	return func(v T) {
		first(v)
		if next != nil {
			next(v)
		}
	}
}

// then2 is then for callbacks of two arguments.
func then2[T, U any](first, next func(T, U)) func(T, U) {
	return func(v T, u U) {
		first(v, u)
		if next != nil {
			next(v, u)
		}
	}
}

// inFlight counts the evictions in flight over the nodes being evicted;
// false when no node is.
func (w *drainWatcher) inFlight() (int, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, pods := range w.evicting {
		for _, p := range pods {
			if p.InFlight() {
				n++
			}
		}
	}
	return n, len(w.evicting) > 0
}

// stopNote says what an interrupted drain still waits for: the evictions
// in flight to return (none is started any more), then it re-reads the
// pods left and prints the summary.
func (w *drainWatcher) stopNote() stopNote {
	note := stopNote{waiting: "the reads in flight, then the summary", skipped: "the summary"}
	note.left = w.leftCordoned()
	n, evicting := w.inFlight()
	if !evicting {
		return note
	}
	switch n {
	case 0:
		note.waiting = "the summary (no eviction is in flight, and no new one starts)"
	case 1:
		note.waiting = "1 eviction in flight (no new one starts), then the summary"
	default:
		note.waiting = fmt.Sprintf("%d evictions in flight (no new one starts), then the summary", n)
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
	return fmt.Sprintf("left cordoned: %s (kubectl graceful uncordon %s to undo; the pods still on a node: kubectl get pods -A --field-selector spec.nodeName=NODE)", list, list)
}
