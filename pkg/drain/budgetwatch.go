package drain

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/watchlist"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// budgetWatch follows the PodDisruptionBudgets of the drained pods, from
// listwatch Streams of its own or the one Drainer.Watches shares, so that a
// pod a budget refused is retried as soon as
// the disruption controller raises disruptionsAllowed again, instead of
// after a blind delay.
type budgetWatch struct {
	mu      sync.Mutex
	allowed map[string]int32 // "namespace/name" -> status.disruptionsAllowed
	// disrupted is each budget's status.disruptedPods: pods an eviction was
	// admitted for, which the budget counts as gone until they are deleted
	// or the disruption controller drops the entry (2 min later).
	disrupted map[string]map[string]metav1.Time
	// seen holds every "namespace/pdb\x00pod" ever listed in a budget's
	// status.disruptedPods while watched: an admitted eviction the status
	// showed, even if the controller dropped the entry since.
	seen map[string]bool
	// wake holds, per budget, a channel closed (and dropped) at its next
	// change. One channel per budget, not one for all: a pool drain holds
	// back most of its evictions at once, and one shared channel woke every
	// held eviction at every status change of any budget (O(pods x
	// changes), the drain's largest CPU cost at 2,000 pods).
	wake map[string]chan struct{}
	// changes counts, per budget, the statuses taken: a refusal answered
	// while the count stood where it stood at the request's sending was
	// judged on a status newer than any held (budgetWatch.changes).
	changes map[string]uint64
	// synced are the informers' HasSynced.
	synced []cache.InformerSynced
}

// newBudgetWatch is a budgetWatch that knows no budget yet.
func newBudgetWatch() *budgetWatch {
	return &budgetWatch{allowed: map[string]int32{}, disrupted: map[string]map[string]metav1.Time{},
		seen: map[string]bool{}, wake: map[string]chan struct{}{}, changes: map[string]uint64{}}
}

// watchBudgets follows the budgets until ctx ends, every change through
// notice: from the cluster-wide stream Drainer.Watches shares when it holds
// one, else from a stream of each namespace's budgets (a namespaced Role
// may grant them). Until every first list, the budgets are unknown and
// retries fall back to the backoff alone.
func (r *run) watchBudgets(ctx context.Context, namespaces []string) *budgetWatch {
	w := newBudgetWatch()
	if r.Flags.DisableEviction {
		return w // deletes: no budget is asked, none is watched
	}
	var listed atomic.Bool
	if r.Watches.Subscribe(ctx, listwatch.Budgets, func(n listwatch.Notice) { w.notice(n, &listed) }) {
		w.synced = []cache.InformerSynced{listed.Load}
		return w
	}
	for _, ns := range namespaces {
		listed := &atomic.Bool{}
		budgets := r.Client.PolicyV1().PodDisruptionBudgets(ns)
		s := &listwatch.Stream{Name: timeline.StreamBudgets, Key: listwatch.Budgets, WatchList: !watchlist.DoesClientNotSupportWatchListSemantics(r.Client), LW: clientListWatch(budgets.List, budgets.Watch)}
		w.synced = append(w.synced, listed.Load)
		go func() { _ = runStream(ctx, s, func(n listwatch.Notice) { w.notice(n, listed) }) }()
	}
	return w
}

// notice takes one Notice of a budgets' stream: every listed or changed budget is set, and the
// last status known is kept through a gap (the Eviction API stays the
// judge). Once the stream ended (Err) no status is known any more: the
// pacer holds nothing back rather than wait on a status that no longer
// changes.
func (w *budgetWatch) notice(n listwatch.Notice, listed *atomic.Bool) {
	switch {
	case n.Kind == listwatch.KindError:
		w.forget()
	case n.Kind == listwatch.KindList:
		for _, o := range n.List {
			w.set(o)
		}
		listed.Store(true)
	case n.Kind == listwatch.KindEvent && n.Event.Type != watch.Deleted:
		w.set(n.Event.Object)
	}
}

// waitSynced waits until every stream listed its budgets, at most
// timeout, and reports whether they did. Until then a budget's status is
// unknown and the pool's pacer holds nothing back.
func (w *budgetWatch) waitSynced(ctx context.Context, timeout time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return cache.WaitForCacheSync(ctx.Done(), w.synced...)
}

func (w *budgetWatch) set(obj any) {
	pdb, ok := obj.(*policyv1.PodDisruptionBudget)
	if !ok {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.allowed[pdbName(pdb)] = pdb.Status.DisruptionsAllowed
	w.changes[pdbName(pdb)]++
	w.disrupted[pdbName(pdb)] = pdb.Status.DisruptedPods
	for pod := range pdb.Status.DisruptedPods {
		w.seen[pdbName(pdb)+"\x00"+pod] = true
	}
	if c, ok := w.wake[pdbName(pdb)]; ok {
		close(c)
		delete(w.wake, pdbName(pdb))
	}
}

// forget drops the budgets' statuses (their watch ended); the
// disruptions seen stay seen.
func (w *budgetWatch) forget() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.allowed, w.disrupted = map[string]int32{}, map[string]map[string]metav1.Time{}
	for _, c := range w.wake {
		close(c)
	}
	w.wake = map[string]chan struct{}{}
}

// changeCount returns how many statuses of pdb the watch took so far.
func (w *budgetWatch) changeCount(pdb string) uint64 {
	if w == nil || pdb == "" {
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.changes[pdb]
}

// state returns the PDB's disruptionsAllowed (-1 when unknown) and a channel
// closed at its next change (or when the statuses are forgotten).
func (w *budgetWatch) state(pdb string) (int32, <-chan struct{}) {
	if w == nil || pdb == "" {
		return -1, nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	a, ok := w.allowed[pdb]
	if !ok {
		a = -1
	}
	c, ok := w.wake[pdb]
	if !ok {
		c = make(chan struct{})
		w.wake[pdb] = c
	}
	return a, c
}

// disruptedSince returns when the budget pdb recorded pod as disrupted
// (status.disruptedPods), and whether it did.
func (w *budgetWatch) disruptedSince(pdb, pod string) (time.Time, bool) {
	if w == nil || pdb == "" {
		return time.Time{}, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	t, ok := w.disrupted[pdb][pod]
	return t.Time, ok
}

// everDisrupted reports whether the budget pdb listed pod in its
// status.disruptedPods at some point while watched.
func (w *budgetWatch) everDisrupted(pdb, pod string) bool {
	if w == nil || pdb == "" {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seen[pdb+"\x00"+pod]
}
