package drain

import (
	"context"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// DrainPool drains nodes as one pool: one preflight for the whole set
// (GatherPool, PoolPreflight); unless DryRun or a refusal, it cordons every
// node before the first eviction, so that no evicted pod lands on a node
// about to be drained and is evicted again, then drains MaxConcurrentNodes
// nodes at a time, holding back the evictions a PodDisruptionBudget cannot
// admit now, across all nodes (budgetPacer). A node deleted meanwhile is
// summarised as gone and the rest go on. It tells the Drainer's Events as
// it goes and returns the pool's result
// with the first API error (the result then says what each node is left
// as); stopping (ctx cancelled, --timeout) is an outcome, not an error.
func (d *Drainer) DrainPool(ctx context.Context, nodes []corev1.Node) (*PoolResult, error) {
	res := &PoolResult{Nodes: []*PoolNode{}, EvictedAgain: []string{}, start: time.Now()}
	err := d.newRun().drainPool(ctx, nodes, res)
	if err != nil {
		res.Error = err.Error()
	}
	res.tally(ctx.Err() != nil)
	res.DurationSeconds = time.Since(res.start).Seconds()
	call(d.Events.PoolDone, res)
	return res, err
}

func (d *run) drainPool(ctx context.Context, nodes []corev1.Node, res *PoolResult) error {
	in, err := ThroughOutage(ctx, d.Backoff, d.Timeout, func(ctx context.Context) (preflight.PoolInput, error) {
		return preflight.GatherPool(ctx, d.Client, d.Dynamic, nodes, d.PodSelector, d.preflightFlags())
	})
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
	res.Preflight = preflight.CheckPool(in)
	res.InitialPods = res.Preflight.PodCount()
	if d.DryRun && d.ServerDryRun {
		for _, r := range res.Preflight.Nodes {
			preflight.ServerDryRun(ctx, d.Client, r, d.Flags)
		}
	}
	call(d.Events.PoolPreflightReady, res.Preflight)
	results := make([]*NodeResult, len(nodes))
	for i := range nodes {
		results[i] = &NodeResult{Node: nodes[i].Name, Preflight: res.Preflight.Nodes[i], Pods: []PodProgress{}, start: time.Now()}
	}
	defer func() {
		for _, r := range results {
			res.Nodes = append(res.Nodes, newPoolNode(r))
		}
	}()
	if d.DryRun || res.Preflight.Refused() {
		// Nothing was changed: every node has the pool's outcome.
		res.Outcome = OutcomeRefused
		if d.DryRun {
			res.Outcome = OutcomeDryRun
		}
		for _, r := range results {
			r.Outcome = res.Outcome
		}
		return nil
	}
	read := map[string]*corev1.Node{}
	for i := range in.Nodes {
		read[in.Nodes[i].Name] = &in.Nodes[i]
	}
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	d.nodes = watchNodes(watchCtx, d.Client, in.Nodes, in.NodesResourceVersion)
	return d.cordonAndDrain(ctx, results, res, read)
}

// cordonAndDrain cordons every node (read: as the preflight read them),
// then drains them; a node left unstarted (Ctrl-C, a cordon that failed)
// is summarised as it stands.
func (d *run) cordonAndDrain(ctx context.Context, results []*NodeResult, res *PoolResult, read map[string]*corev1.Node) error {
	cordonedAt := time.Now()
	err := d.cordonAll(ctx, results, read)
	var started []bool
	if err == nil && ctx.Err() == nil {
		call(d.Events.NodesCordoned, results)
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

// cordonAll cordons each node in turn (read: as the preflight read them,
// or newer from the node watch), recording whether our patch did; a node
// not found is gone. It stops at the first API error or when ctx ends.
func (d *run) cordonAll(ctx context.Context, results []*NodeResult, read map[string]*corev1.Node) error {
	for _, r := range results {
		if ctx.Err() != nil {
			return nil
		}
		byUs, err := d.cordons.cordon(ctx, r.Node, d.nodes.latest(r.Node, read[r.Node]))
		switch {
		case apierrors.IsNotFound(err):
			d.nodeGone(r)
		case err != nil && ctx.Err() == nil:
			return fmt.Errorf("cordoning node %s: %w", r.Node, err)
		case err == nil:
			r.CordonedByUs = byUs
			call2(d.Events.NodeCordoned, r.Node, byUs)
		}
	}
	return nil
}

// nodeGone records a node deleted during the pool drain.
func (d *Drainer) nodeGone(r *NodeResult) {
	r.Outcome, r.Error, r.After = OutcomeNodeGone, "the node was deleted during the drain", nil
	r.clock()
}
