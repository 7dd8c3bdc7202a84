package drain

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/eviction"
)

// The drain of a pool's cordoned nodes, several at a time.

// budgetSyncTimeout bounds the wait for the budgets' first list before a
// pool's first eviction; past it the Eviction API alone judges until they
// are listed.
const budgetSyncTimeout = 10 * time.Second

// drainNodes drains the cordoned nodes, MaxConcurrentNodes at a time, in
// order, sharing one watch of the budgets and one pacer. It returns which
// nodes it started, the pods evicted again (created after cordonedAt, not
// among initial) and the first API error.
func (d *run) drainNodes(ctx context.Context, results []*NodeResult, cordonedAt time.Time, initial map[string]bool) ([]bool, []string, error) {
	poolCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	pdbOf, namespaces := budgetIndex(results...)
	budgets := d.watchBudgets(poolCtx, namespaces)
	// Paced from the first eviction on: evictions sent from several nodes
	// before the budgets are known would be judged by 429s alone.
	budgets.waitSynced(ctx, budgetSyncTimeout)
	d.pacer = newBudgetPacer(budgets)
	started := make([]bool, len(results))
	slots := make(chan struct{}, max(d.MaxConcurrentNodes, 1))
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	var again []string
	for i, r := range results {
		if r.Outcome == OutcomeNodeGone {
			continue
		}
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		started[i] = true
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			nd := d.node()
			err := nd.drainPoolNode(ctx, r, budgets, pdbOf)
			mu.Lock()
			defer mu.Unlock()
			again = append(again, nd.evictedAgain(cordonedAt, initial)...)
			if err != nil && firstErr == nil {
				firstErr = fmt.Errorf("node %s: %w", r.Node, err)
			}
		}()
	}
	wg.Wait()
	return started, again, firstErr
}

// drainPoolNode evicts the pods of one cordoned node of the pool, its
// --timeout counted from its turn, and tells NodeDone. A node deleted
// before its turn or during it ends as OutcomeNodeGone without an error.
func (d *nodeRun) drainPoolNode(ctx context.Context, r *NodeResult, budgets *budgetWatch, pdbOf map[string]string) error {
	nodeCtx, cancel := eviction.WithTimeout(ctx, d.Timeout)
	defer cancel()
	r.start = time.Now()
	if d.deleted(r.Node) {
		// Deleted since the cordon: its pods go with it (pod garbage
		// collection), not through evictions of ours.
		d.nodeGone(r)
		call(d.Events.NodeDone, r)
		return nil
	}
	r.EvictionsStarted = true
	_, err := d.evictCordoned(nodeCtx, r, func() *budgetWatch { return budgets }, pdbOf)
	if (err != nil || r.After != nil && !r.After.Known) && d.deleted(r.Node) {
		err = nil
		pods := r.Pods
		d.nodeGone(r)
		r.Pods = pods
	}
	r.clock()
	call(d.Events.NodeDone, r)
	return err
}

// deleted reports whether node is deleted: as the pool's node watch saw
// it, else read again now.
func (d *run) deleted(node string) bool {
	if d.nodes != nil {
		return d.nodes.deleted(node)
	}
	return readDeleted(d.Client, node)
}

// leaveUnstarted summarises a cordoned node whose drain never started (the
// pool drain was interrupted, or a cordon failed): its pods are listed as
// not evicted and, with --uncordon-on-failure, our cordon is undone.
func (d *run) leaveUnstarted(ctx context.Context, r *NodeResult, cause error) {
	if r.Outcome != "" {
		return
	}
	n := d.node()
	tracker, cancel := n.listLeft(r.Node)
	defer cancel()
	outcome := OutcomeInterrupted
	if ctx.Err() == nil {
		outcome = OutcomeError
	}
	_, _ = n.stop(r, tracker, outcome, cause)
	if r.After != nil && !r.After.Known && d.deleted(r.Node) {
		d.nodeGone(r)
	}
	r.clock()
	call(d.Events.NodeDone, r)
}
