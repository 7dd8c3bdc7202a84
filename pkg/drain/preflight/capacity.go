package preflight

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/kubectl-graceful/kubectl-graceful/internal/drain/amount"
)

// CapacityReport says whether the pods the pool evicts fit on the nodes
// outside it. The model is the scheduler's resource fit (NodeResourcesFit:
// a pod's effective requests against a node's allocatable minus the
// requests of the pods bound there) and its node filters (nodeSelector,
// required node affinity, NoSchedule/NoExecute taints), packed first-fit
// decreasing. It is an approximation: pod affinity and anti-affinity,
// topology spread, host ports, volumes and pods waiting to be scheduled are
// not modelled, so a pod placed here may still stay Pending; and a greedy
// packing can miss a fit an exhaustive one would find.
type CapacityReport struct {
	// NodesOutside counts the Ready, schedulable nodes outside the pool
	// that pass the node filters of at least one pod to replace (all of
	// them when there is none): the only nodes the replacements are
	// counted on.
	NodesOutside int `json:"nodesOutside"`
	// NodesOutsideUnschedulable counts the nodes outside the pool that are
	// cordoned or not Ready: they take nothing.
	NodesOutsideUnschedulable int `json:"nodesOutsideUnschedulable"`
	// NodesOutsideUnmatched counts the Ready, schedulable nodes outside the
	// pool that none of the pods may use (nodeSelector, affinity, taints).
	NodesOutsideUnmatched int `json:"nodesOutsideUnmatched"`
	// Resources are, per resource the replaced pods request (cpu, memory
	// and pods first), their total against what is free on the
	// NodesOutside.
	Resources []ResourceCapacity `json:"resources"`
	// Unplaced are the pods whose replacement fits on no node outside the
	// pool in the model, with why.
	Unplaced []UnplacedPod `json:"unplaced"`
	// NotReplaced are the evicted pods ("namespace/name") no controller
	// recreates (no controller): they are deleted, not moved, and need no room.
	NotReplaced []string `json:"notReplaced"`
	// UsageKnown is false when the pods bound to the nodes outside could
	// not be listed: FreeOutside is then their whole allocatable, an upper
	// bound, and only a shortfall is certain.
	UsageKnown bool `json:"usageKnown"`
	// UsageError says why the usage is unknown.
	UsageError string `json:"usageError,omitempty"`
}

// ResourceCapacity is one resource: what the replacements request against
// what the nodes outside the pool have free.
type ResourceCapacity struct {
	// Name is the resource name (cpu, memory, pods, nvidia.com/gpu, ...).
	Name string `json:"name"`
	// Unit is the unit of Needed and FreeOutside: "millicores", "bytes" or
	// "count".
	Unit string `json:"unit"`
	// Needed is the sum of the effective requests of the pods to replace
	// (for pods: how many), in Unit.
	Needed int64 `json:"needed"`
	// FreeOutside is the sum, over the schedulable nodes outside the pool,
	// of allocatable minus the requests of the pods bound there, in Unit.
	FreeOutside int64 `json:"freeOutside"`
}

// UnplacedPod is a pod whose replacement fits nowhere outside the pool.
type UnplacedPod struct {
	// Pod is "namespace/name".
	Pod string `json:"pod"`
	// Node is the pool node it is evicted from.
	Node string `json:"node"`
	// Reason says which filter no node passed, or which resources were short.
	Reason string `json:"reason"`
}

// poolPod is one pod the pool evicts, with the node it leaves.
type poolPod struct {
	pod        *corev1.Pod
	node       string
	replicated bool
}

// capacity packs the replacements of pods onto the schedulable nodes of
// in.Nodes outside the pool and reports what fits.
func capacity(in PoolInput, pods []poolPod) *CapacityReport {
	c := &CapacityReport{Resources: []ResourceCapacity{}, Unplaced: []UnplacedPod{}, NotReplaced: []string{},
		UsageKnown: in.OutsidePods != nil}
	if in.OutsidePodsError != nil {
		c.UsageError = in.OutsidePodsError.Error()
	}
	// cpu, memory and pods are always shown, even when nothing requests them.
	needed := amounts{corev1.ResourceCPU: 0, corev1.ResourceMemory: 0, corev1.ResourcePods: 0}
	var toPlace []poolPod
	for _, p := range pods {
		if !p.replicated {
			c.NotReplaced = append(c.NotReplaced, podKey(p.pod))
			continue
		}
		toPlace = append(toPlace, p)
		for name, v := range podRequests(p.pod) {
			needed[name] += v
		}
	}
	outside := usable(outsideNodes(in, c), toPlace, c)
	c.NodesOutside = len(outside)
	free := amounts{}
	for _, n := range outside {
		for name, v := range n.free {
			free[name] += v
		}
	}
	for _, name := range resourceOrder(needed) {
		c.Resources = append(c.Resources, ResourceCapacity{Name: string(name), Unit: amount.UnitOf(name),
			Needed: needed[name], FreeOutside: free[name]})
	}
	c.Unplaced = pack(toPlace, outside)
	return c
}

// nodeRoom is a schedulable node outside the pool and what it has free.
type nodeRoom struct {
	node *corev1.Node
	free amounts
}

// outsideNodes returns the Ready, schedulable nodes outside the pool,
// sorted by name, with allocatable minus the requests of the pods bound
// there (not finished ones), and counts the others in c.
func outsideNodes(in PoolInput, c *CapacityReport) []*nodeRoom {
	inPool := nodeNameSet(in.Pool)
	rooms := map[string]*nodeRoom{}
	var out []*nodeRoom
	for i := range in.Nodes {
		n := &in.Nodes[i]
		if inPool[n.Name] {
			continue
		}
		if n.Spec.Unschedulable || !nodeReady(n) {
			c.NodesOutsideUnschedulable++
			continue
		}
		room := &nodeRoom{node: n, free: amounts{}}
		for name, q := range n.Status.Allocatable {
			room.free[name] = amountOf(name, q)
		}
		rooms[n.Name] = room
		out = append(out, room)
	}
	for i := range in.OutsidePods {
		p := &in.OutsidePods[i]
		room := rooms[p.Spec.NodeName]
		if room == nil || finished(p) {
			continue
		}
		// A terminating pod keeps its requests until it is gone, as the
		// scheduler counts it.
		for name, v := range podRequests(p) {
			room.free[name] -= v
		}
	}
	for _, r := range out {
		for name, v := range r.free {
			r.free[name] = max(v, 0)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].node.Name < out[b].node.Name })
	return out
}

// usable returns the rooms that pass the node filters of at least one of
// pods (all rooms when there is no pod), counting the others in c.
func usable(rooms []*nodeRoom, pods []poolPod, c *CapacityReport) []*nodeRoom {
	if len(pods) == 0 {
		return rooms
	}
	affinities := make([]nodeaffinity.RequiredNodeAffinity, len(pods))
	for i, p := range pods {
		affinities[i] = nodeaffinity.GetRequiredNodeAffinity(p.pod)
	}
	var out []*nodeRoom
	for _, r := range rooms {
		for i, p := range pods {
			if schedulableFor(p.pod, affinities[i], r.node) {
				out = append(out, r)
				break
			}
		}
	}
	c.NodesOutsideUnmatched = len(rooms) - len(out)
	return out
}

// pack places pods (first-fit decreasing: largest cpu, then memory, first;
// nodes by name) on rooms, taking what each placed pod requests off its
// node, and returns the pods that fit nowhere.
func pack(pods []poolPod, rooms []*nodeRoom) []UnplacedPod {
	reqs := make(map[*corev1.Pod]amounts, len(pods))
	for _, p := range pods {
		reqs[p.pod] = podRequests(p.pod)
	}
	slices.SortStableFunc(pods, func(a, b poolPod) int {
		ra, rb := reqs[a.pod], reqs[b.pod]
		return cmp.Or(cmp.Compare(rb[corev1.ResourceCPU], ra[corev1.ResourceCPU]),
			cmp.Compare(rb[corev1.ResourceMemory], ra[corev1.ResourceMemory]), cmp.Compare(podKey(a.pod), podKey(b.pod)))
	})
	out := []UnplacedPod{}
	filters := map[string][]bool{}
	for _, p := range pods {
		key := filterKey(p.pod)
		if filters[key] == nil {
			filters[key] = nodeFilters(p.pod, rooms)
		}
		if why := place(reqs[p.pod], rooms, filters[key]); why != "" {
			out = append(out, UnplacedPod{Pod: podKey(p.pod), Node: p.node, Reason: why})
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Pod < out[b].Pod })
	return out
}

// filterKey is what the node filters read of pod, so that pods alike
// (those of one template) are filtered once.
func filterKey(pod *corev1.Pod) string {
	var affinity *corev1.NodeAffinity
	if pod.Spec.Affinity != nil {
		affinity = pod.Spec.Affinity.NodeAffinity
	}
	b, _ := json.Marshal(struct {
		S map[string]string
		A *corev1.NodeAffinity
		T []corev1.Toleration
	}{pod.Spec.NodeSelector, affinity, pod.Spec.Tolerations})
	return string(b)
}

// nodeFilters reports, per room, whether pod passes its node filters.
func nodeFilters(pod *corev1.Pod, rooms []*nodeRoom) []bool {
	affinity := nodeaffinity.GetRequiredNodeAffinity(pod)
	out := make([]bool, len(rooms))
	for i, r := range rooms {
		out[i] = schedulableFor(pod, affinity, r.node)
	}
	return out
}

// place puts a pod requesting req on the first room that passes its node
// filters (matches, per room) and has room for req, and returns "" or why
// it fits nowhere.
func place(req amounts, rooms []*nodeRoom, matches []bool) string {
	var matching []*nodeRoom
	for i, r := range rooms {
		if !matches[i] {
			continue
		}
		matching = append(matching, r)
		if fits(req, r.free) {
			for name, v := range req {
				r.free[name] -= v
			}
			return ""
		}
	}
	switch {
	case len(rooms) == 0:
		return "no schedulable node outside the pool"
	case len(matching) == 0:
		return "no schedulable node outside the pool matches its nodeSelector, required node affinity and tolerations"
	}
	return shortOf(req, matching)
}

func fits(req, free amounts) bool {
	for name, v := range req {
		if free[name] < v {
			return false
		}
	}
	return true
}

// shortOf says which requests of req no matching room can hold, comparing
// each with the most any of them has free.
func shortOf(req amounts, matching []*nodeRoom) string {
	var short []string
	for _, name := range resourceOrder(req) {
		most := int64(0)
		for _, r := range matching {
			most = max(most, r.free[name])
		}
		if req[name] > most {
			short = append(short, fmt.Sprintf("%s: requests %s, at most %s free on a matching node",
				name, amount.Format(string(name), req[name]), amount.Format(string(name), most)))
		}
	}
	if len(short) == 0 {
		return fmt.Sprintf("no matching node outside the pool has room for all its requests at once (%d matching)", len(matching))
	}
	return "not enough " + strings.Join(short, "; ")
}
