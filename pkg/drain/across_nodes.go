package drain

import (
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// What the pool's summary counts across nodes: the pods evicted again, the
// pods it started with, the budgets of all its nodes.

// evictedAgain returns the pods of this node's drain whose eviction was
// accepted and that were created after cordonedAt and not among initial:
// replacements that landed on a pool node.
func (d *nodeRun) evictedAgain(cordonedAt time.Time, initial map[string]bool) []string {
	if d.tracker == nil {
		return nil
	}
	var out []string
	for _, p := range d.tracker.snapshot() {
		key := p.Namespace + "/" + p.Name
		pod := d.tracker.listedPod(key)
		if p.Accepted && !initial[key] && pod != nil && !pod.CreationTimestamp.Time.Before(cordonedAt.Truncate(time.Second)) {
			out = append(out, key)
		}
	}
	return out
}

// initialPods returns the pods ("namespace/name") the pool's preflight
// found on its nodes: to evict, skipped or terminating.
func initialPods(r *preflight.PoolReport) map[string]bool {
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
