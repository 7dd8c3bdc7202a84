package drain

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
)

// Pool-level blocker kinds: reasons the drain of the whole set cannot
// finish, beyond those of its nodes.
const (
	// BlockerPoolNoCapacity: the pods of the pool do not fit on the
	// schedulable nodes outside it (requests against allocatable, node
	// selector/affinity, taints).
	BlockerPoolNoCapacity = "pool-no-capacity"
)

// PoolInput is everything the pool preflight reads, gathered beforehand
// (GatherPool) or built by hand in tests.
type PoolInput struct {
	// Pool are the nodes to drain, in the order they are drained.
	Pool []corev1.Node
	// Nodes are all nodes of the cluster, as read.
	Nodes []corev1.Node
	// PerNode is the preflight input of each node of Pool, same order. Its
	// Nodes show every node of the pool as cordoned, as it will be before
	// the first eviction: a replacement never counts on a pool node.
	PerNode []PreflightInput
	// OutsidePods are the pods bound to nodes outside the pool, whose
	// requests already use those nodes' allocatable; nil when not read.
	OutsidePods []corev1.Pod
	// MaxConcurrentNodes is how many nodes are drained at a time (>= 1).
	MaxConcurrentNodes int
}

// PoolPreflightReport is the preflight of a set of nodes drained as one
// pool: each node's own preflight, computed as if every node of the pool
// were already cordoned, plus what only the whole set shows.
type PoolPreflightReport struct {
	// Nodes are the per-node preflights, in drain order.
	Nodes []*PreflightReport `json:"nodes"`
	// Blockers are the pool-level blockers (BlockerPool*); a node's own are
	// in its report.
	Blockers []Issue `json:"blockers"`
	// Warnings are the pool-level warnings.
	Warnings []Issue `json:"warnings"`
	// EstimatedSeconds is the rough wall time of the whole pool in seconds;
	// nil when a blocker stops the drain or makes it wait until --timeout.
	EstimatedSeconds *int64 `json:"estimatedSeconds,omitempty"`
	// Verdict is the one-line answer for the pool.
	Verdict string `json:"verdict"`
}

// Refused reports whether the pool drain will not start at all: a node's
// preflight refuses, or a pool-level blocker does.
func (r *PoolPreflightReport) Refused() bool {
	for _, b := range r.Blockers {
		if b.Refuses {
			return true
		}
	}
	for _, n := range r.Nodes {
		if n.Refused() {
			return true
		}
	}
	return false
}

// Blocked reports whether any blocker was found, at pool or node level.
func (r *PoolPreflightReport) Blocked() bool {
	if len(r.Blockers) > 0 {
		return true
	}
	for _, n := range r.Nodes {
		if len(n.Blockers) > 0 {
			return true
		}
	}
	return false
}

// PodCount returns how many pods the pool drain evicts.
func (r *PoolPreflightReport) PodCount() int {
	n := 0
	for _, nr := range r.Nodes {
		n += nr.PodCount()
	}
	return n
}

// GatherPool reads what PoolPreflight needs for the nodes of pool (Gather
// for each, then the pool seen as cordoned). It returns the first API
// error (Forbidden, unreachable).
func GatherPool(ctx context.Context, client kubernetes.Interface, pool []corev1.Node, podSelector string, flags Flags) (PoolInput, error) {
	in := PoolInput{Pool: pool, MaxConcurrentNodes: 1}
	for i := range pool {
		one, err := Gather(ctx, client, &pool[i], podSelector, flags)
		if err != nil {
			return in, err
		}
		if in.Nodes == nil {
			in.Nodes = one.Nodes
		}
		one.Nodes = cordonedView(one.Nodes, pool)
		in.PerNode = append(in.PerNode, one)
	}
	return in, nil
}

// cordonedView returns a copy of nodes in which every node of pool is
// unschedulable.
func cordonedView(nodes, pool []corev1.Node) []corev1.Node {
	inPool := map[string]bool{}
	for _, n := range pool {
		inPool[n.Name] = true
	}
	out := make([]corev1.Node, len(nodes))
	for i := range nodes {
		out[i] = nodes[i]
		if inPool[nodes[i].Name] {
			out[i].Spec.Unschedulable = true
		}
	}
	return out
}

// PoolPreflight says what draining every node of in.Pool would do and what
// would block it, without calling the API server.
func PoolPreflight(in PoolInput) *PoolPreflightReport {
	r := &PoolPreflightReport{Nodes: []*PreflightReport{}, Blockers: []Issue{}, Warnings: []Issue{}}
	var est int64
	for _, one := range in.PerNode {
		nr := Preflight(one)
		r.Nodes = append(r.Nodes, nr)
		if nr.EstimatedSeconds != nil {
			// Nodes drain one after another by default: their times add up.
			est += *nr.EstimatedSeconds
		}
	}
	if !r.Blocked() {
		r.EstimatedSeconds = &est
	}
	r.Verdict = poolVerdict(r)
	return r
}

// poolVerdict is the one-line answer for the pool.
func poolVerdict(r *PoolPreflightReport) string {
	if !r.Blocked() {
		return fmt.Sprintf("would succeed: %d pod(s) evicted from %d node(s) in about %ds",
			r.PodCount(), len(r.Nodes), *r.EstimatedSeconds)
	}
	var why []string
	for _, b := range r.Blockers {
		why = append(why, b.Kind)
	}
	for _, n := range r.Nodes {
		if len(n.Blockers) > 0 {
			why = append(why, "node "+n.Node+": "+n.Verdict)
		}
	}
	if r.Refused() {
		return "would not start: " + strings.Join(why, "; ")
	}
	return "would block: " + strings.Join(why, "; ")
}
