package preflight

import (
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubectl-graceful/kubectl-graceful/internal/drain/amount"
)

// sized gives n an allocatable of cpu, memory and pods.
func sized(n corev1.Node, cpu, memory, pods string) corev1.Node {
	n.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu),
		corev1.ResourceMemory: resource.MustParse(memory), corev1.ResourcePods: resource.MustParse(pods)}
	return n
}

// requesting gives p one container requesting cpu and memory.
func requesting(p corev1.Pod, cpu, memory string) corev1.Pod {
	p.Spec.Containers = []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}}}}
	return p
}

// poolInput builds the PoolInput of draining the nodes named pool out of
// nodes, the pods bound elsewhere read as OutsidePods.
func poolInput(pool []string, nodes []corev1.Node, pods []corev1.Pod, pdbs []policyv1.PodDisruptionBudget) PoolInput {
	in := PoolInput{Nodes: nodes, MaxConcurrentNodes: 1, OutsidePods: []corev1.Pod{}}
	inPool := map[string]bool{}
	for _, name := range pool {
		inPool[name] = true
		for _, n := range nodes {
			if n.Name == name {
				in.Pool = append(in.Pool, n)
			}
		}
	}
	view := cordonedView(nodes, in.Pool)
	for i := range in.Pool {
		one := Input{Node: &in.Pool[i], Nodes: view, NamespacePods: pods, PDBs: pdbs,
			RSOwners: map[string]OwnerRef{ns + "/web-1": {Kind: "Deployment", Name: "web"}},
			Flags:    Flags{GracePeriodSeconds: -1}, RetryDelay: time.Second, Now: time.Unix(1e9, 0)}
		for _, p := range pods {
			if p.Spec.NodeName == in.Pool[i].Name {
				one.Pods = append(one.Pods, p)
			}
		}
		in.PerNode = append(in.PerNode, one)
	}
	for _, p := range pods {
		if !inPool[p.Spec.NodeName] {
			in.OutsidePods = append(in.OutsidePods, p)
		}
	}
	return in
}

// Four pods of 2 CPU / 4 GiB leave the pool; the one node outside they
// may use has 4 CPU / 8 GiB of which a pod already requests half: one
// fits, three do not, and the blocker says so with the numbers. A big node
// whose taint they do not tolerate adds nothing to the free room.
func TestPoolCapacityShortOutside(t *testing.T) {
	big := sized(node("o-big", false), "1k", "1Ti", "1M")
	big.Spec.Taints = []corev1.Taint{{Key: "team", Value: "other", Effect: corev1.TaintEffectNoExecute}}
	nodes := []corev1.Node{sized(node("p1", false), "8", "16Gi", "110"), sized(node("p2", false), "8", "16Gi", "110"),
		sized(node("o1", false), "4", "8Gi", "110"), big}
	pods := []corev1.Pod{
		requesting(rsPod("web-1-a", "web-1", "web", "p1", true), "2", "4Gi"),
		requesting(rsPod("web-1-b", "web-1", "web", "p1", true), "2", "4Gi"),
		requesting(rsPod("web-1-c", "web-1", "web", "p2", true), "2", "4Gi"),
		requesting(rsPod("web-1-d", "web-1", "web", "p2", true), "2", "4Gi"),
		requesting(rsPod("db-1-a", "db-1", "db", "o1", true), "2", "4Gi"),
	}
	r := poolPreflightOf(t, poolInput([]string{"p1", "p2"}, nodes, pods, nil))
	c := r.Capacity
	if c.NodesOutside != 1 || c.NodesOutsideUnmatched != 1 || len(c.Unplaced) != 3 {
		t.Fatalf("capacity = %+v, want 1 node outside (and the tainted one unmatched), 3 pods unplaced", c)
	}
	want := []ResourceCapacity{{"cpu", amount.Millicores, 8000, 2000}, {"memory", amount.Bytes, 16 << 30, 4 << 30}, {"pods", amount.Count, 4, 109}}
	for i, w := range want {
		if i >= len(c.Resources) || c.Resources[i] != w {
			t.Errorf("resources = %+v, want %+v", c.Resources, want)
			break
		}
	}
	b := has(r.Blockers, BlockerPoolNoCapacity)
	if b == nil || !b.Refuses || !r.Refused() {
		t.Fatalf("blockers = %+v, want %s refusing", r.Blockers, BlockerPoolNoCapacity)
	}
	for _, s := range []string{"request 8 CPU / 16 GiB / 4 pods", "1 schedulable node(s) outside it they may use have 2 CPU / 4 GiB / 109 pods free",
		"3 pod(s) would fit nowhere", "not enough cpu: requests 2 CPU, at most 0 CPU free"} {
		if !strings.Contains(b.Message, s) {
			t.Errorf("blocker %q lacks %q", b.Message, s)
		}
	}
	if r.EstimatedSeconds != nil || !strings.HasPrefix(r.Verdict, "would not start: pool-no-capacity") {
		t.Errorf("estimate %v, verdict %q; want none and would not start", r.EstimatedSeconds, r.Verdict)
	}
}

// A pool that is every node leaves nowhere for the pods to go.
func TestPoolCapacityNoNodeOutside(t *testing.T) {
	nodes := []corev1.Node{sized(node("p1", false), "8", "16Gi", "110"), sized(node("p2", false), "8", "16Gi", "110")}
	pods := []corev1.Pod{requesting(rsPod("web-1-a", "web-1", "web", "p1", true), "100m", "64Mi")}
	r := poolPreflightOf(t, poolInput([]string{"p1", "p2"}, nodes, pods, nil))
	b := has(r.Blockers, BlockerPoolNoCapacity)
	if b == nil || !strings.Contains(b.Message, "nowhere for the 1 pod(s) to go, which request 0.1 CPU / 64 MiB / 1 pods") {
		t.Fatalf("blockers = %+v, want nowhere for the pods to go with the requests", r.Blockers)
	}
	if r.Capacity.Unplaced[0].Reason != "no schedulable node outside the pool" {
		t.Errorf("reason = %q", r.Capacity.Unplaced[0].Reason)
	}
}

// Only nodes that pass the scheduler's node filters count: a tainted node
// and a cordoned one take nothing, a nodeSelector nobody outside matches
// leaves its pod unplaced, and pods that fit produce no blocker.
func TestPoolCapacityNodeFilters(t *testing.T) {
	tainted := sized(node("o-tainted", false), "64", "64Gi", "110")
	tainted.Spec.Taints = []corev1.Taint{{Key: "gpu", Effect: corev1.TaintEffectNoSchedule}}
	nodes := []corev1.Node{sized(node("p1", false), "8", "16Gi", "110"), tainted,
		sized(node("o-cordoned", true), "64", "64Gi", "110"), sized(node("o1", false), "4", "8Gi", "110")}
	picky := requesting(rsPod("web-1-b", "web-1", "web", "p1", true), "1", "1Gi")
	picky.Spec.NodeSelector = map[string]string{"disk": "ssd"}
	pods := []corev1.Pod{requesting(rsPod("web-1-a", "web-1", "web", "p1", true), "1", "1Gi"), picky}
	r := poolPreflightOf(t, poolInput([]string{"p1"}, nodes, pods, nil))
	c := r.Capacity
	if c.NodesOutside != 1 || c.NodesOutsideUnschedulable != 1 || c.NodesOutsideUnmatched != 1 {
		t.Errorf("nodes outside %d (+%d unschedulable, +%d unmatched), want 1 (+1, +1: the tainted one)",
			c.NodesOutside, c.NodesOutsideUnschedulable, c.NodesOutsideUnmatched)
	}
	if len(c.Unplaced) != 1 || c.Unplaced[0].Pod != ns+"/web-1-b" || !strings.Contains(c.Unplaced[0].Reason, "matches its nodeSelector") {
		t.Fatalf("unplaced = %+v, want web-1-b for its nodeSelector", c.Unplaced)
	}
	// Without the selector, the tainted node is left out and o1 holds it.
	r = poolPreflightOf(t, poolInput([]string{"p1"}, nodes, []corev1.Pod{pods[0], requesting(rsPod("web-1-b", "web-1", "web", "p1", true), "3", "1Gi")}, nil))
	if len(r.Capacity.Unplaced) != 0 || len(r.Blockers) != 0 || r.EstimatedSeconds == nil {
		t.Errorf("unplaced %+v blockers %+v: want both pods on o1 (4 CPU), nothing blocking", r.Capacity.Unplaced, r.Blockers)
	}
}

// Effective requests are the scheduler's: an init container larger than
// the app counts instead of it; finished pods outside use nothing.
func TestPoolCapacityEffectiveRequests(t *testing.T) {
	nodes := []corev1.Node{sized(node("p1", false), "8", "16Gi", "110"), sized(node("o1", false), "3", "8Gi", "110")}
	initBig := requesting(rsPod("web-1-a", "web-1", "web", "p1", true), "1", "1Gi")
	initBig.Spec.InitContainers = []corev1.Container{{Name: "init", Resources: corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}}}}
	done := requesting(rsPod("job-a", "job", "job", "o1", false), "3", "1Gi")
	done.Status.Phase = corev1.PodSucceeded
	r := poolPreflightOf(t, poolInput([]string{"p1"}, nodes, []corev1.Pod{initBig, done}, nil))
	if len(r.Capacity.Resources) == 0 || r.Capacity.Resources[0].Needed != 4000 || r.Capacity.Resources[0].FreeOutside != 3000 {
		t.Fatalf("resources = %+v, want cpu 4000m needed (init container), 3000m free (finished pod not counted)", r.Capacity.Resources)
	}
	if len(r.Capacity.Unplaced) != 1 || !strings.Contains(r.Capacity.Unplaced[0].Reason, "requests 4 CPU, at most 3 CPU free") {
		t.Errorf("unplaced = %+v", r.Capacity.Unplaced)
	}
}

// A bare pod is deleted, not moved: it needs no room and is said to be
// gone for good. Unread usage outside is said to be unknown.
func TestPoolCapacityBarePodAndUnknownUsage(t *testing.T) {
	nodes := []corev1.Node{sized(node("p1", false), "8", "16Gi", "110"), sized(node("o1", false), "1", "1Gi", "110")}
	bare := requesting(rsPod("lonely", "x", "x", "p1", true), "4", "1Gi")
	bare.OwnerReferences = nil
	in := poolInput([]string{"p1"}, nodes, []corev1.Pod{bare}, nil)
	in.PerNode[0].Flags.Force = true
	in.OutsidePods, in.OutsidePodsError = nil, errors.New("the server is on fire")
	r := poolPreflightOf(t, in)
	if len(r.Capacity.Unplaced) != 0 || len(r.Capacity.NotReplaced) != 1 || has(r.Warnings, WarningPoolNotReplaced) == nil {
		t.Errorf("capacity = %+v warnings %v: want the bare pod not replaced, not unplaced", r.Capacity, kinds(r.Warnings))
	}
	w := has(r.Warnings, WarningPoolCapacityUnknown)
	if r.Capacity.UsageKnown || w == nil || !strings.Contains(w.Message, "the server is on fire") {
		t.Errorf("usage known %v, warnings %+v: want unknown with the reason", r.Capacity.UsageKnown, r.Warnings)
	}
}

// A spare node uncordoned a moment ago still carries the lifecycle
// controller's node.kubernetes.io/unschedulable taint for a few seconds:
// it counts, as the replacements will be scheduled there once it is lifted.
func TestPoolCapacityJustUncordonedNodeCounts(t *testing.T) {
	spare := sized(node("o1", false), "4", "8Gi", "110")
	spare.Spec.Taints = []corev1.Taint{{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}}
	nodes := []corev1.Node{sized(node("p1", false), "8", "16Gi", "110"), spare}
	pods := []corev1.Pod{requesting(rsPod("web-1-a", "web-1", "web", "p1", true), "1", "1Gi")}
	r := poolPreflightOf(t, poolInput([]string{"p1"}, nodes, pods, nil))
	if r.Capacity.NodesOutside != 1 || len(r.Blockers) != 0 {
		t.Errorf("capacity %+v, blockers %+v: want the just uncordoned node to count", r.Capacity, r.Blockers)
	}
}
