package drain_test

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// requestLine matches client-go's -v 6 log of one request: its verb and URL.
var requestLine = regexp.MustCompile(`verb="([A-Z]+)" url="([^"]*)"`)

// statusOf matches the status of a response in client-go's -v 6 log.
var statusOf = regexp.MustCompile(`status="[^"]*"`)

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
	// client-go logs each response twice at -v 6, not always next to each
	// other and its milliseconds measured twice: a request line seen n
	// times, its time left out, is (n+1)/2 requests.
	seen := map[string]int{}
	for _, line := range strings.Split(stderr, "\n") {
		if m := requestLine.FindString(line); m != "" && strings.Contains(line, "status=") {
			seen[m+" "+statusOf.FindString(line)]++
		}
	}
	for line, n := range seen {
		m := requestLine.FindStringSubmatch(line)
		times := (n + 1) / 2
		total += times
		path := m[2]
		if i := strings.IndexAny(path, "?"); i >= 0 {
			path = path[:i]
		}
		switch {
		case m[1] == "GET" && podGetURL.MatchString(m[2]):
			gets += times
		case m[1] == "POST" && strings.HasSuffix(path, "/eviction"):
			evictions += times
		}
		kinds[m[1]+" "+resourceOf(path)] += times
	}
	t.Logf("%d requests for 12 evicted pods: %d evictions, %d GETs of single pods; by kind: %s", total, evictions, gets, summary(kinds))
	if gets != 0 {
		t.Errorf("%d GETs of single pods, want none: the wait for deletion reads the node's pod watch", gets)
	}
	if evictions > 13 {
		t.Errorf("%d eviction requests for 12 pods, want at most 1.10 per pod: the budgets' watch paces them", evictions)
	}
	// The rest is 3 requests per node (the cordon's patch, kubectl's list
	// of the pods to evict, the watch list of the node's pods) and 11 per
	// run (the command's list of the pool, the preflight's lists of the
	// nodes, the pods, the PDBs and ReplicaSets, 4 access reviews, the
	// watches of the nodes and the budgets): 17 here, 1 of slack.
	if rest := total - evictions; rest > 18 {
		t.Errorf("%d requests beyond the evictions, want at most 18: 3 per node and 11 per run (%s)", rest, summary(kinds))
	}
}

// resourceOf is the resource (and subresource) a request's path names,
// "pods/eviction", for the log.
func resourceOf(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	for i := len(parts) - 1; i >= 0; i-- {
		switch parts[i] {
		case "pods", "nodes", "poddisruptionbudgets", "selfsubjectaccessreviews", "namespaces", "replicasets", "deployments", "statefulsets", "daemonsets", "events", "services", "endpointslices":
			if i+2 < len(parts) {
				return parts[i] + "/" + parts[i+2]
			}
			return parts[i]
		}
	}
	return path
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
	// client-go logs each response twice at -v 6 (see above).
	lists := 0
	for _, line := range strings.Split(stderr, "\n") {
		m := requestLine.FindStringSubmatch(line)
		if m != nil && strings.Contains(line, "status=") && m[1] == "GET" && strings.Contains(m[2], "/api/v1/pods?") &&
			strings.Contains(m[2], "spec.nodeName%3D"+empty) && !strings.Contains(m[2], "watch=true") {
			lists++
		}
	}
	if got := (lists + 1) / 2; got != 1 {
		t.Errorf("%d lists of the pods of the empty node %s, want 1 (kubectl's filters); the summary reads its pod watch", got, empty)
	}
}
