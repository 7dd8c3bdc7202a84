package drain_test

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// podGetURL is the URL of a GET of one pod.
var podGetURL = regexp.MustCompile(`/api/v1/namespaces/[^/"]+/pods/[^/"?]+($|\?)`)

// A pool of 2 nodes holding 12 pods of 2 Deployments under PDBs of
// minAvailable 2 and maxUnavailable 1, drained 2 nodes at a time: every pod is
// still evicted once and seen gone (the report and the cluster agree); the
// wait for each pod's deletion is one watch of each node's pods, so no pod is
// read on its own, and the budgets' watch paces the evictions so that the
// requests beyond one eviction per pod are the drain's fixed costs (the
// preflight's reads, the cordons, the lists and watches), not retries:
// 3 per node and 11 per run.
func TestDrainPoolWaitsOnOneWatchPerNode(t *testing.T) {
	t.Parallel()
	p := newPoolFixture(t, 2, 2)
	desired := p.deployOnPool(2, 6)
	w := p.watchPool(t)
	stdout, stderr, code := runUntil(t, p.fixture, p.poolDrainArgs("--max-concurrent-nodes", "2", "-v", "6"), nil)
	w.Stop()
	if code != 0 {
		t.Fatalf("exit status %d, want 0; stderr %s", code, stderr)
	}
	checkDrainedOnce(t, p, w, parsePoolReport(t, stdout), 12)
	w.checkBudgets(desired)
	kinds := map[string]int{}
	gets, evictions, total := 0, 0, 0
	reqs := e2e.ClientRequests(stderr)
	for _, r := range reqs {
		total += r.Count
		switch kind := r.Kind(); {
		case kind == "GET pods" && podGetURL.MatchString(r.URL):
			gets += r.Count
		case kind == "POST pods/eviction":
			evictions += r.Count
		}
		kinds[r.Kind()] += r.Count
	}
	t.Logf("%d requests for 12 evicted pods: %d evictions, %d GETs of single pods; by kind: %s", total, evictions, gets, summary(kinds))
	// A stream's watch resumed after a dropped connection, or the List and
	// watch it falls back to when a loaded API server cannot serve its
	// watch list in time, are the API server's cost, not the drain's.
	repeats := 0
	for target, rep := range e2e.StreamRepeats(reqs) {
		t.Logf("repeated by its stream: %s: %d watches, %d lists", target, rep.Watches, rep.Lists)
		repeats += rep.Watches + rep.Lists
	}
	if gets != 0 {
		t.Errorf("%d GETs of single pods, want none: the wait for deletion reads the node's pod watch", gets)
	}
	if evictions > 13 {
		t.Errorf("%d eviction requests for 12 pods, want at most 1.10 per pod: the budgets' watch paces them", evictions)
	}
	// The rest is 3 requests per node (the cordon's patch, kubectl's list
	// of the pods to evict, the watch list of the node's pods) and 14 per
	// run (the command's list of the pool, the preflight's lists of the
	// nodes, the pods, the PDBs, ReplicaSets and Deployments, 6 access
	// reviews: get and patch the node, watch pods, evict, get pods and
	// watch the budgets in the namespace; the watch of the nodes and the
	// watch list of the budgets): 20 here, 1 of slack.
	if rest := total - evictions - repeats; rest > 21 {
		t.Errorf("%d requests beyond the evictions, want at most 21: 3 per node and 14 per run (%s)", rest, summary(kinds))
	}
}

// summary prints kinds sorted by name.
func summary(kinds map[string]int) string {
	var out []string
	for k, v := range kinds {
		out = append(out, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// A pool whose second node holds none of the pods: its drain has nothing
// to evict and ends at once, before its pod watch's first list has come.
// Its summary still reads the node's pods from that watch (it waits for
// the list), so the node costs the one list of kubectl's filters, not a
// second list at the end. The drain ends drained, every pod evicted once.
func TestDrainPoolEmptyNodeListsItsPodsOnce(t *testing.T) {
	t.Parallel()
	p := newPoolFixture(t, 2, 2)
	empty := p.pool[1]
	p.cordon(empty, true)
	p.deployOnPool(1, 4)
	p.cordon(empty, false)
	stdout, stderr, code := runUntil(t, p.fixture, p.poolDrainArgs("--max-concurrent-nodes", "2", "-v", "6"), nil)
	if code != 0 {
		t.Fatalf("exit status %d, want 0; stderr %s", code, stderr)
	}
	report := parsePoolReport(t, stdout)
	for _, n := range report.Nodes {
		if n.Outcome != "drained" {
			t.Errorf("node %s: outcome %s, want drained", n.Node, n.Outcome)
		}
	}
	lists, reqs := 0, e2e.ClientRequests(stderr)
	for _, r := range reqs {
		if r.Kind() == "LIST pods" && strings.Contains(r.URL, "spec.nodeName%3D"+empty) {
			lists += r.Count
		}
	}
	// The List a pod stream falls back to when a loaded API server cannot
	// serve its watch list in time is the same URL as kubectl's.
	for target, rep := range e2e.StreamRepeats(reqs) {
		if strings.HasSuffix(target, "spec.nodeName="+empty) && rep.Lists > 0 {
			t.Logf("the pod stream of %s fell back to %d list(s)", empty, rep.Lists)
			lists -= rep.Lists
		}
	}
	if got := lists; got != 1 {
		t.Errorf("%d lists of the pods of the empty node %s, want 1 (kubectl's filters); the summary reads its pod watch", got, empty)
	}
}
