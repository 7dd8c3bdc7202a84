package drain

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/eviction"
)

// DrainPool drains nodes as one pool: one preflight for the whole set
// (GatherPool, PoolPreflight); unless DryRun or a refusal, it cordons every
// node before the first eviction, so that no evicted pod lands on a node
// about to be drained and is evicted again, then drains MaxConcurrentNodes
// nodes at a time, holding back the evictions a PodDisruptionBudget cannot
// admit now, across all nodes (budgetPacer). A node deleted meanwhile is
// summarised as gone and the rest go on. It tells the Drainer's Observer
// (a PoolObserver when it is one) as it goes and returns the pool's result
// with the first API error (the result then says what each node is left
// as); stopping (ctx cancelled, --timeout) is an outcome, not an error.
func (d *Drainer) DrainPool(ctx context.Context, nodes []corev1.Node) (*PoolResult, error) {
	res := &PoolResult{Nodes: []*PoolNode{}, EvictedAgain: []string{}, start: time.Now()}
	err := d.drainPool(ctx, nodes, res)
	if err != nil {
		res.Error = err.Error()
	}
	res.tally(ctx.Err() != nil)
	res.DurationSeconds = time.Since(res.start).Seconds()
	d.poolObserver().PoolDone(res)
	return res, err
}

func (d *Drainer) drainPool(ctx context.Context, nodes []corev1.Node, res *PoolResult) error {
	in, err := GatherPool(ctx, d.Client, nodes, d.PodSelector, d.Flags)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	in.MaxConcurrentNodes = max(d.MaxConcurrentNodes, 1)
	for i := range in.PerNode {
		in.PerNode[i].RetryDelay, in.PerNode[i].PodWarnings = d.Backoff.Base, d.PodWarnings
	}
	res.Preflight = PoolPreflight(in)
	res.InitialPods = res.Preflight.PodCount()
	if d.DryRun && d.ServerDryRun {
		for _, r := range res.Preflight.Nodes {
			ServerDryRun(ctx, d.Client, r, d.Flags)
		}
	}
	d.poolObserver().PoolPreflightReady(res.Preflight)
	results := make([]*NodeResult, len(nodes))
	for i := range nodes {
		results[i] = &NodeResult{Node: nodes[i].Name, Preflight: res.Preflight.Nodes[i], Pods: []PodProgress{}, start: time.Now()}
	}
	defer func() {
		for _, r := range results {
			res.Nodes = append(res.Nodes, newPoolNode(r))
		}
	}()
	switch {
	case d.DryRun:
		setOutcome(results, OutcomeDryRun)
		res.Outcome = OutcomeDryRun
		return nil
	case res.Preflight.Refused():
		setOutcome(results, OutcomeRefused)
		res.Outcome = OutcomeRefused
		return nil
	}
	return d.cordonAndDrain(ctx, results, res)
}

// setOutcome gives every node the same outcome, nothing having been done.
func setOutcome(results []*NodeResult, outcome string) {
	for _, r := range results {
		r.Outcome = outcome
	}
}

// cordonAndDrain cordons every node, then drains them; a node left
// unstarted (Ctrl-C, a cordon that failed) is summarised as it stands.
func (d *Drainer) cordonAndDrain(ctx context.Context, results []*NodeResult, res *PoolResult) error {
	cordonedAt := time.Now()
	err := d.cordonAll(ctx, results)
	var started []bool
	if err == nil && ctx.Err() == nil {
		d.poolObserver().NodesCordoned(results)
		var again []string
		started, again, err = d.drainNodes(ctx, results, cordonedAt, initialPods(res.Preflight))
		res.EvictedAgain = append(res.EvictedAgain, again...)
		sort.Strings(res.EvictedAgain)
	}
	for i, r := range results {
		if (started == nil || !started[i]) && r.Outcome != OutcomeNodeGone {
			d.leaveUnstarted(ctx, r, err)
		}
	}
	return err
}

// cordonAll cordons each node in turn, recording whether our patch did; a
// node not found is gone. It stops at the first API error or when ctx ends.
func (d *Drainer) cordonAll(ctx context.Context, results []*NodeResult) error {
	for _, r := range results {
		if ctx.Err() != nil {
			return nil
		}
		byUs, err := d.cordoner().cordon(ctx, r.Node)
		switch {
		case apierrors.IsNotFound(err):
			d.nodeGone(r)
		case err != nil && ctx.Err() == nil:
			return errors.New("cordoning node " + r.Node + ": " + err.Error())
		case err == nil:
			r.CordonedByUs = byUs
		}
	}
	return nil
}

// nodeGone records a node deleted during the pool drain.
func (d *Drainer) nodeGone(r *NodeResult) {
	r.Outcome, r.Error, r.After = OutcomeNodeGone, "the node was deleted during the drain", nil
	r.clock()
}

// budgetSyncTimeout bounds the wait for the budgets' first list before a
// pool's first eviction; past it the Eviction API alone judges until they
// are listed.
const budgetSyncTimeout = 10 * time.Second

// drainNodes drains the cordoned nodes, MaxConcurrentNodes at a time, in
// order, sharing one watch of the budgets and one pacer. It returns which
// nodes it started, the pods evicted again (created after cordonedAt, not
// among initial) and the first API error.
func (d *Drainer) drainNodes(ctx context.Context, results []*NodeResult, cordonedAt time.Time, initial map[string]bool) ([]bool, []string, error) {
	poolCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	pdbOf, namespaces := poolBudgetIndex(results)
	budgets := watchBudgets(poolCtx, d.Client, namespaces)
	// Paced from the first eviction on: evictions sent from several nodes
	// before the budgets are known would be judged by 429s alone.
	budgets.waitSynced(ctx, budgetSyncTimeout)
	pacer := newBudgetPacer(budgets)
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
			nd := *d
			nd.pacer, nd.cordons = pacer, d.cordoner()
			err := nd.drainPoolNode(ctx, r, budgets, pdbOf)
			mu.Lock()
			defer mu.Unlock()
			again = append(again, nd.evictedAgain(cordonedAt, initial)...)
			if err != nil && firstErr == nil {
				firstErr = errors.New("node " + r.Node + ": " + err.Error())
			}
		}()
	}
	wg.Wait()
	return started, again, firstErr
}

// drainPoolNode evicts the pods of one cordoned node of the pool, its
// --timeout counted from its turn, and tells NodeDone. A node deleted
// before its turn or during it ends as OutcomeNodeGone without an error.
func (d *Drainer) drainPoolNode(ctx context.Context, r *NodeResult, budgets *budgetWatch, pdbOf map[string]string) error {
	nodeCtx, cancel := eviction.WithTimeout(ctx, d.Timeout)
	defer cancel()
	d.evictCtx = nodeCtx
	r.start = time.Now()
	obs := d.poolObserver()
	if d.deleted(r.Node) {
		// Deleted since the cordon: its pods go with it (pod garbage
		// collection), not through evictions of ours.
		d.nodeGone(r)
		obs.NodeDone(r)
		return nil
	}
	r.EvictionsStarted = true
	_, err := d.evictCordoned(nodeCtx, r, func() *budgetWatch { return budgets }, pdbOf,
		func(p PodProgress) { obs.NodePodChanged(r.Node, p) })
	if (err != nil || r.After != nil && !r.After.Known) && d.deleted(r.Node) {
		err = nil
		pods := r.Pods
		d.nodeGone(r)
		r.Pods = pods
	}
	r.clock()
	obs.NodeDone(r)
	return err
}

// deleted reports whether node is found deleted, read again now.
func (d *Drainer) deleted(node string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	_, err := d.Client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	return apierrors.IsNotFound(err)
}

// leaveUnstarted summarises a cordoned node whose drain never started (the
// pool drain was interrupted, or a cordon failed): its pods are listed as
// not evicted and, with --uncordon-on-failure, our cordon is undone.
func (d *Drainer) leaveUnstarted(ctx context.Context, r *NodeResult, cause error) {
	if r.Outcome != "" {
		return
	}
	listCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	d.evictCtx = listCtx
	tracker := NewTracker(nil, nil)
	h := d.helper(listCtx, tracker, nil, nil)
	if list, _ := h.GetPodsForDeletion(r.Node); list != nil {
		tracker = NewTracker(list.Pods(), nil)
	}
	outcome := OutcomeInterrupted
	if ctx.Err() == nil {
		outcome = OutcomeError
	}
	_, _ = d.stop(r, h, tracker, outcome, cause)
	if r.After != nil && !r.After.Known && d.deleted(r.Node) {
		d.nodeGone(r)
	}
	r.clock()
	d.poolObserver().NodeDone(r)
}

// evictedAgain returns the pods of this node's drain whose eviction was
// accepted and that were created after cordonedAt and not among initial:
// replacements that landed on a pool node.
func (d *Drainer) evictedAgain(cordonedAt time.Time, initial map[string]bool) []string {
	if d.tracker == nil {
		return nil
	}
	var out []string
	for _, p := range d.tracker.Snapshot() {
		key := p.Namespace + "/" + p.Name
		pod := d.tracker.listedPod(key)
		if p.accepted && !initial[key] && pod != nil && !pod.CreationTimestamp.Time.Before(cordonedAt.Truncate(time.Second)) {
			out = append(out, key)
		}
	}
	return out
}

// initialPods returns the pods ("namespace/name") the pool's preflight
// found on its nodes: to evict, skipped or terminating.
func initialPods(r *PoolPreflightReport) map[string]bool {
	out := map[string]bool{}
	for _, n := range r.Nodes {
		for _, g := range n.Evict {
			for _, p := range g.Pods {
				out[p.Namespace+"/"+p.Name] = true
			}
		}
		for _, p := range n.Skipped {
			out[p.Namespace+"/"+p.Name] = true
		}
		for _, p := range n.Terminating {
			out[p.Namespace+"/"+p.Name] = true
		}
	}
	return out
}

// poolBudgetIndex is budgetIndex over every node of the pool.
func poolBudgetIndex(results []*NodeResult) (map[string]string, []string) {
	pdbOf := map[string]string{}
	seen := map[string]bool{}
	var namespaces []string
	for _, r := range results {
		one, ns := budgetIndex(r.Preflight)
		for k, v := range one {
			pdbOf[k] = v
		}
		for _, n := range ns {
			if !seen[n] {
				seen[n] = true
				namespaces = append(namespaces, n)
			}
		}
	}
	return pdbOf, namespaces
}
