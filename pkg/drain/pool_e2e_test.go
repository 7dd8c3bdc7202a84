package drain_test

import (
	"sort"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// poolDrainArgs are the arguments of a pool drain of p with -o json.
func (p *poolFixture) poolDrainArgs(extra ...string) []string {
	return append([]string{"drain", "node", "-l", p.selector, "--timeout", "120s", "-o", "json"}, extra...)
}

// checkDrainedOnce fails the test unless every node of the pool drained
// and every pod on it was evicted exactly once: the report says so and
// the cluster agrees (no pod landed on a pool node, each initial pod gone).
func checkDrainedOnce(t *testing.T, p *poolFixture, w *poolWatcher, r poolReport, pods int) {
	t.Helper()
	if r.Outcome != "drained" || len(r.Nodes) != len(p.pool) {
		t.Fatalf("pool outcome %q with %d nodes, want drained with %d", r.Outcome, len(r.Nodes), len(p.pool))
	}
	requests := 0
	for _, n := range r.Nodes {
		for _, pod := range n.Pods {
			requests += pod.Attempts
		}
	}
	// Evictions are held back while a budget allows none: no storm of
	// 429s. A stale status may still cost the odd refusal.
	t.Logf("%d eviction requests for %d pods", requests, pods)
	if requests > pods+pods/10 {
		t.Errorf("%d eviction requests for %d pods: the budgets refused more than a tenth", requests, pods)
	}
	for _, n := range r.Nodes {
		if n.Result != "drained" || n.Left != 0 || n.StaysCordoned == nil || !*n.StaysCordoned || !n.CordonedByUs {
			t.Errorf("node %s: result %s, left %d, stays cordoned %v, cordoned by us %v", n.Node, n.Result, n.Left, n.StaysCordoned, n.CordonedByUs)
		}
		for _, pod := range n.Pods {
			if pod.GoneBy != "evicted" {
				t.Errorf("pod %s on %s: %s (%s), want evicted", pod.Name, n.Node, pod.State, pod.GoneBy)
			}
		}
	}
	if r.InitialPods != pods || r.Evictions != pods || r.EvictionsPerPod != 1 || len(r.EvictedAgain) != 0 {
		t.Errorf("initial pods %d, evictions %d, per pod %.2f, evicted again %v; want %d, %d, 1.00, none",
			r.InitialPods, r.Evictions, r.EvictionsPerPod, r.EvictedAgain, pods, pods)
	}
	if w.evictions != pods || len(w.landed) != 0 {
		t.Errorf("the cluster saw %d pool pods go (want %d) and pods landing on pool nodes: %v", w.evictions, pods, w.landed)
	}
	for _, n := range p.pool {
		if left := p.pods("", onNode(n)); len(left) != 0 {
			t.Errorf("node %s still runs %d pod(s)", n, len(left))
		}
	}
}

// (1) A pool of 4 nodes holding 40 pods of 8 Deployments under PDBs of
// minAvailable 2, maxUnavailable 1, minAvailable 50% and maxUnavailable
// 50%, 2 spare nodes: every node is cordoned before the first eviction,
// every pod is evicted exactly once, no budget goes below desiredHealthy,
// and nodes drain one after another (no two nodes' evictions overlap).
func TestDrainPoolEachPodEvictedOnce(t *testing.T) {
	t.Parallel()
	p := newPoolFixture(t, 4, 2)
	desired := p.deployOnPool(8, 5)
	w := p.watchPool(t)
	stdout, stderr, code := runUntil(t, p.fixture, p.poolDrainArgs(), nil)
	w.Stop()
	if code != 0 {
		t.Fatalf("exit status %d, want 0; stderr %s", code, stderr)
	}
	checkDrainedOnce(t, p, w, parsePoolReport(t, stdout), 40)
	w.checkCordonedFirst(p.pool)
	w.checkBudgets(desired)
	if w.overlapped() {
		t.Errorf("two nodes had evictions under way at once with --max-concurrent-nodes 1")
	}
}

// (2) The same pool with --max-concurrent-nodes 2: the same guarantees,
// and two nodes' evictions are seen under way at once.
func TestDrainPoolTwoNodesAtATime(t *testing.T) {
	t.Parallel()
	p := newPoolFixture(t, 4, 2)
	desired := p.deployOnPool(8, 5)
	w := p.watchPool(t)
	stdout, stderr, code := runUntil(t, p.fixture, p.poolDrainArgs("--max-concurrent-nodes", "2"), nil)
	w.Stop()
	if code != 0 {
		t.Fatalf("exit status %d, want 0; stderr %s", code, stderr)
	}
	checkDrainedOnce(t, p, w, parsePoolReport(t, stdout), 40)
	w.checkCordonedFirst(p.pool)
	w.checkBudgets(desired)
	if !w.overlapped() {
		t.Errorf("no two nodes had evictions under way at once with --max-concurrent-nodes 2")
	}
}

// (4, 5) Ctrl-C mid-pool, one node of the pool cordoned before the drain,
// with and without --uncordon-on-failure: exit 2, and the summary of each
// node agrees with the cluster read afterwards (pods left on it, cordon).
// The node cordoned before stays cordoned; with --uncordon-on-failure the
// nodes this drain cordoned and did not empty are uncordoned, without it
// they stay cordoned.
func TestDrainPoolInterrupted(t *testing.T) {
	t.Parallel()
	eachUncordonMode(t, func(t *testing.T, uncordon bool) {
		p := newPoolFixture(t, 4, 2)
		desired := p.deployOnPool(4, 4)
		before := p.pool[3]
		p.cordon(before, true)
		w := p.watchPool(t)
		args := p.poolDrainArgs()
		if uncordon {
			args = append(args, "--uncordon-on-failure")
		}
		// Interrupt once a few pods went: the first node is under way.
		stdout, stderr, code := runUntil(t, p.fixture, args, func() bool { return w.evictionsSeen() >= 3 })
		w.Stop()
		if code != 2 {
			t.Errorf("exit status %d, want 2; stderr %s", code, stderr)
		}
		r := parsePoolReport(t, stdout)
		if r.Outcome != "interrupted" || len(r.Nodes) != 4 {
			t.Fatalf("pool outcome %q with %d nodes, want interrupted with 4", r.Outcome, len(r.Nodes))
		}
		w.checkBudgets(desired)
		untouched := 0
		for _, n := range r.Nodes {
			checkNodeTruth(t, p, n.Node, n.Result, n.Left, n.StaysCordoned, n.Pods)
			if n.Result == "untouched" {
				untouched++
			}
			cordoned := p.unschedulable(n.Node)
			switch {
			case n.Node == before:
				if !cordoned || n.CordonedByUs || n.Uncordoned {
					t.Errorf("node %s, cordoned before the drain: cordoned %v, by us %v, uncordoned %v", n.Node, cordoned, n.CordonedByUs, n.Uncordoned)
				}
			case n.Result == "drained":
				if !cordoned {
					t.Errorf("node %s was drained and is schedulable", n.Node)
				}
			case uncordon != n.Uncordoned || uncordon == cordoned:
				t.Errorf("node %s (%s) with --uncordon-on-failure %v: uncordoned %v, cordoned now %v", n.Node, n.Result, uncordon, n.Uncordoned, cordoned)
			}
		}
		if untouched == 0 {
			t.Errorf("no node left untouched: the interruption came too late to test it")
		}
	})
}

// checkNodeTruth compares what the report says of a node with the cluster
// read now: of the pods the report lists, those it says are not evicted
// are still there and no more (terminating ones may have gone since); a
// pod it does not list runs only on a node it left schedulable; and the
// cordon is as reported.
func checkNodeTruth(t *testing.T, p *poolFixture, node, result string, left int, staysCordoned *bool, pods []poolPod) {
	t.Helper()
	list, err := p.env.Client.CoreV1().Pods(p.ns).List(p.ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
	if err != nil {
		t.Fatal(err)
	}
	reported := map[string]bool{}
	for _, pod := range pods {
		reported[pod.Name] = true
	}
	live, terminating := 0, 0
	cordoned := p.unschedulable(node)
	for i := range list.Items {
		pod := &list.Items[i]
		switch {
		case !reported[pod.Name]:
			// Scheduled since the drain ended: only on a node it left
			// schedulable.
			if cordoned {
				t.Errorf("node %s is cordoned and runs %s, which the report does not know", node, pod.Name)
			}
		case pod.DeletionTimestamp == nil:
			live++
		default:
			terminating++
		}
	}
	reportedLive := 0
	for _, pod := range pods {
		if pod.State != "gone" && pod.State != "terminating" {
			reportedLive++
		}
	}
	if live != reportedLive || live+terminating > left {
		t.Errorf("node %s (%s): the report says %d left (%d not evicted); the cluster has %d live and %d terminating",
			node, result, left, reportedLive, live, terminating)
	}
	if result == "untouched" && strings.Count(strings.Join(podStates(pods), ","), "gone") != 0 {
		t.Errorf("node %s untouched but pods gone: %v", node, podStates(pods))
	}
	if staysCordoned == nil || *staysCordoned != p.unschedulable(node) {
		t.Errorf("node %s: report says stays cordoned %v, the node is unschedulable %v", node, staysCordoned, p.unschedulable(node))
	}
}

func podStates(pods []poolPod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name+"="+p.State)
	}
	return out
}

// A node of the pool deleted during the drain, before its turn, is
// summarised as gone and none of its pods is evicted by the drain; the
// other nodes drain; exit 2 (not every node drained), nothing on stderr.
func TestDrainPoolNodeDeleted(t *testing.T) {
	t.Parallel()
	p := newPoolFixture(t, 3, 2)
	p.deployOnPool(3, 4)
	w := p.watchPool(t)
	// Nodes drain in the order the API server lists them: by name.
	sorted := append([]string{}, p.pool...)
	sort.Strings(sorted)
	victim := sorted[2]
	deleted := false
	stdout, stderr, code := runUntil(t, p.fixture, p.poolDrainArgs(), func() bool {
		if !deleted && w.evictionsSeen() >= 1 {
			deleted = true
			if err := p.env.Client.CoreV1().Nodes().Delete(p.ctx, victim, metav1.DeleteOptions{}); err != nil {
				t.Errorf("delete node %s: %v", victim, err)
			}
		}
		return false
	})
	w.Stop()
	if code != 2 || strings.TrimSpace(stderr) != "" {
		t.Errorf("exit status %d stderr %q, want 2 and nothing on stderr", code, stderr)
	}
	r := parsePoolReport(t, stdout)
	for _, n := range r.Nodes {
		want := "drained"
		if n.Node == victim {
			want = "node-gone"
		}
		if n.Result != want {
			t.Errorf("node %s: result %s (%s), want %s", n.Node, n.Result, n.Outcome, want)
		}
		if n.Node == victim && (n.Evicted != 0 || n.StaysCordoned != nil) {
			t.Errorf("deleted node %s: %d evicted, stays cordoned %v; want none and unknown", n.Node, n.Evicted, n.StaysCordoned)
		}
	}
}

// --timeout in a pool bounds each node: a node held by a budget that
// allows nothing times out with its pod left and, with
// --uncordon-on-failure, is uncordoned; the other nodes drain and stay
// cordoned; exit 2.
func TestDrainPoolTimeout(t *testing.T) {
	t.Parallel()
	p := newPoolFixture(t, 3, 1)
	p.deployOnPool(2, 3)
	held := p.pool[1]
	p.placeOn(p.others(held), func() { p.deploy("frozen", "frozen", 1, p.group, nil) })
	p.pdb("frozen", "frozen", nil, intOrStr(0), nil, 1)
	stdout, _, code := runUntil(t, p.fixture, append(p.poolDrainArgs("--uncordon-on-failure"), "--timeout", "10s"), nil)
	if code != 2 {
		t.Errorf("exit status %d, want 2", code)
	}
	r := parsePoolReport(t, stdout)
	if r.Outcome != "not-drained" || len(r.Nodes) != 3 {
		t.Fatalf("pool outcome %q with %d nodes, want not drained with 3", r.Outcome, len(r.Nodes))
	}
	for _, n := range r.Nodes {
		checkNodeTruth(t, p, n.Node, n.Result, n.Left, n.StaysCordoned, n.Pods)
		switch {
		case n.Node == held:
			if n.Outcome != "timed-out" || n.Left < 1 || !n.Uncordoned || p.unschedulable(n.Node) {
				t.Errorf("held node %s: outcome %s, left %d, uncordoned %v", n.Node, n.Outcome, n.Left, n.Uncordoned)
			}
		case n.Result != "drained" || !p.unschedulable(n.Node):
			t.Errorf("node %s: %s (%s), cordoned %v; want drained and cordoned", n.Node, n.Result, n.Outcome, p.unschedulable(n.Node))
		}
	}
}
