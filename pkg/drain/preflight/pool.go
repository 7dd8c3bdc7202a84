package preflight

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// PoolInput is everything the pool preflight reads, gathered beforehand
// (GatherPool) or built by hand in tests.
type PoolInput struct {
	// Pool are the nodes to drain, in the order they are drained.
	Pool []corev1.Node
	// Nodes are all nodes of the cluster, as read.
	Nodes []corev1.Node
	// NodesResourceVersion is the resourceVersion of the list Nodes come
	// from: a watch of the nodes from it misses no change since.
	NodesResourceVersion string
	// PerNode is the preflight input of each node of Pool, same order. Its
	// Nodes show every node of the pool as cordoned, as it will be before
	// the first eviction: a replacement never counts on a pool node.
	PerNode []Input
	// OutsidePods are the pods bound to nodes outside the pool, whose
	// requests already use those nodes' allocatable; nil when not read.
	OutsidePods []corev1.Pod
	// OutsidePodsError is why OutsidePods could not be read, nil when read.
	OutsidePodsError error
	// MaxConcurrentNodes is how many nodes are drained at a time (>= 1).
	MaxConcurrentNodes int
}

// PoolReport is the preflight of a set of nodes drained as one
// pool: each node's own preflight, computed as if every node of the pool
// were already cordoned, plus what only the whole set shows.
type PoolReport struct {
	// Nodes are the per-node preflights, in drain order.
	Nodes []*Report `json:"nodes"`
	// Blockers are the pool-level blockers (BlockerPool*); a node's own are
	// in its report.
	Blockers []Issue `json:"blockers"`
	// Warnings are the pool-level warnings.
	Warnings []Issue `json:"warnings"`
	// Capacity says whether the evicted pods fit on the schedulable nodes
	// outside the pool (requests against allocatable, node filters).
	Capacity *CapacityReport `json:"capacity"`
	// Budgets are the PodDisruptionBudgets of the evicted pods counted
	// across the pool, in drain order of their first node.
	Budgets []PoolBudget `json:"budgets"`
	// DrainTogether groups the pool's nodes, in drain order, into sets that
	// can drain at the same time without waiting on each other's budgets.
	DrainTogether [][]string `json:"drainTogether"`
	// Pods are the evicted pods with what the wall-time model reads.
	Pods []PoolEviction `json:"pods"`
	// MaxConcurrentNodes is how many nodes the estimate drains at a time.
	MaxConcurrentNodes int `json:"maxConcurrentNodes"`
	// RetryDelaySeconds is the drain's first wait after a refused
	// eviction, in seconds, added to each budget wave of the estimate.
	RetryDelaySeconds float64 `json:"retryDelaySeconds"`
	// EstimatedSeconds is the rough wall time of the whole pool in seconds;
	// nil when a blocker stops the drain or makes it wait until --timeout.
	EstimatedSeconds *int64 `json:"estimatedSeconds,omitempty"`
	// IdealSeconds is idealPoolSeconds for MaxConcurrentNodes: the least
	// wall time the budgets allow, in seconds; nil when blocked.
	IdealSeconds *float64 `json:"idealSeconds,omitempty"`
	// Verdict is the one-line answer for the pool.
	Verdict string `json:"verdict"`
}

// Refused reports whether the pool drain will not start at all: a node's
// preflight refuses, or a pool-level blocker does.
func (r *PoolReport) Refused() bool {
	return refusing(r.Blockers) || slices.ContainsFunc(r.Nodes, (*Report).Refused)
}

// Blocked reports whether any blocker was found, at pool or node level.
func (r *PoolReport) Blocked() bool {
	return len(r.Blockers) > 0 || slices.ContainsFunc(r.Nodes, func(n *Report) bool { return len(n.Blockers) > 0 })
}

// PodCount returns how many pods the pool drain evicts.
func (r *PoolReport) PodCount() int {
	n := 0
	for _, nr := range r.Nodes {
		n += nr.PodCount()
	}
	return n
}

// GatherPool reads what CheckPool needs for the nodes of pool (Gather
// for each, the lists they share read once, then the pool seen as
// cordoned). It returns the first API
// error (Forbidden, unreachable).
func GatherPool(ctx context.Context, client kubernetes.Interface, dc dynamic.Interface, pool []corev1.Node, podSelector string, flags Flags) (PoolInput, error) {
	in := PoolInput{Pool: pool, MaxConcurrentNodes: 1}
	// One list of every pod, where a list per node and per namespace
	// would be one request each.
	pods, err := client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return in, fmt.Errorf("listing pods: %w", err)
	}
	reads := &clusterReads{pods: pods, dynamic: dc}
	for i := range pool {
		one, err := gather(ctx, client, &pool[i], podSelector, flags, reads)
		if err != nil {
			return in, err
		}
		if in.Nodes == nil {
			in.Nodes = one.Nodes
		}
		one.Nodes = cordonedView(one.Nodes, pool)
		in.PerNode = append(in.PerNode, one)
	}
	in.OutsidePods, in.NodesResourceVersion = outsidePods(pods.Items, pool), reads.nodesRV
	return in, nil
}

// outsidePods returns the pods not finished and bound to nodes outside
// pool.
func outsidePods(pods []corev1.Pod, pool []corev1.Node) []corev1.Pod {
	inPool := nodeNameSet(pool)
	out := []corev1.Pod{}
	for _, p := range pods {
		if p.Spec.NodeName != "" && !inPool[p.Spec.NodeName] && !finished(&p) {
			out = append(out, p)
		}
	}
	return out
}

// nodeNameSet returns the set of the names of nodes.
func nodeNameSet(nodes []corev1.Node) map[string]bool {
	out := map[string]bool{}
	for _, n := range nodes {
		out[n.Name] = true
	}
	return out
}

// cordonedView returns a copy of nodes in which every node of pool is
// unschedulable.
func cordonedView(nodes, pool []corev1.Node) []corev1.Node {
	inPool := nodeNameSet(pool)
	out := make([]corev1.Node, len(nodes))
	for i := range nodes {
		out[i] = nodes[i]
		if inPool[nodes[i].Name] {
			out[i].Spec.Unschedulable = true
		}
	}
	return out
}

// CheckPool says what draining every node of in.Pool would do and what
// would block it, without calling the API server: each node's preflight
// with the pool cordoned, the capacity outside the pool, the budgets
// across it, the nodes that can drain together and the estimate for
// in.MaxConcurrentNodes.
func CheckPool(in PoolInput) *PoolReport {
	r := &PoolReport{Nodes: []*Report{}, Blockers: []Issue{}, Warnings: []Issue{},
		MaxConcurrentNodes: max(in.MaxConcurrentNodes, 1)}
	var pods []poolPod
	var flags Flags
	for _, one := range in.PerNode {
		nr := Check(one)
		r.Nodes = append(r.Nodes, nr)
		pods = append(pods, evictedPods(nr, one)...)
		flags = one.Flags
		r.RetryDelaySeconds = one.RetryDelay.Seconds()
	}
	r.Capacity = capacity(in, pods)
	r.Budgets = poolBudgets(r.Nodes, pods)
	r.DrainTogether = drainTogether(r.Nodes, r.Budgets)
	r.Pods = poolPods(r.Nodes, pods, flags)
	capacityIssues(r)
	if !r.Blocked() {
		est := estimatedPoolSeconds(r, r.MaxConcurrentNodes)
		ideal := idealPoolSeconds(r, r.MaxConcurrentNodes)
		r.EstimatedSeconds, r.IdealSeconds = &est, &ideal
	}
	r.Verdict = poolVerdict(r, flags.Timeout)
	return r
}

// evictedPods returns the pods of one's node that nr evicts.
func evictedPods(nr *Report, one Input) []poolPod {
	evict := map[string]bool{}
	for _, g := range nr.Evict {
		for _, p := range g.Pods {
			evict[p.Namespace+"/"+p.Name] = true
		}
	}
	var out []poolPod
	for i := range one.Pods {
		p := &one.Pods[i]
		if evict[podKey(p)] {
			out = append(out, poolPod{pod: p, node: nr.Node, replicated: ownerOf(p, one.RSOwners).replicated()})
		}
	}
	return out
}

// poolVerdict is the one-line answer for the pool; timeout is --timeout.
func poolVerdict(r *PoolReport, timeout time.Duration) string {
	if !r.Blocked() {
		deleted := 0
		for _, n := range r.Nodes {
			deleted += deletedPastBudget(n)
		}
		past := ""
		if deleted > 0 {
			past = fmt.Sprintf(", %d of them deleted past their budget if it still refuses them (--delete-after)", deleted)
		}
		return fmt.Sprintf("would succeed: %d pod(s) evicted from %d node(s)%s, %d at a time, in about %ds",
			r.PodCount(), len(r.Nodes), past, r.MaxConcurrentNodes, *r.EstimatedSeconds)
	}
	var why []string
	for _, b := range r.Blockers {
		why = append(why, string(b.Kind))
	}
	for _, n := range r.Nodes {
		if len(n.Blockers) > 0 {
			why = append(why, "node "+n.Node+": "+blockerList(n))
		}
	}
	if r.Refused() {
		return "would not start: " + strings.Join(why, "; ")
	}
	return "would block: " + strings.Join(why, "; ") + "; " + blockedWait("every node of the pool", " on each node", timeout)
}
