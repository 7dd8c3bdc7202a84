package nodewatch_test

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// podGet is the URL of a GET of one pod.
var podGet = regexp.MustCompile(`/api/v1/namespaces/[^/"]+/pods/[^/"?]+($|\?)`)

// TestDrainWatchOpensOneWatchPerNode: `drain node -l POOL --watch
// --max-concurrent-nodes 2` opens one watch of each node's pods and one
// of the PodDisruptionBudgets, shared by the drain's wait for each pod's
// deletion, its budget pacing and the node watch, as the command's
// request log (-v 6) shows; and the drain's wait reads the shared watch,
// not one GET per pod per second.
func TestDrainWatchOpensOneWatchPerNode(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	_, sel, nodes := naiveAndHardened(t, env, false)
	res := env.Kubectl(t, "graceful", "drain", "node", "-l", sel, "--ignore-daemonsets", "--watch",
		"--max-concurrent-nodes", "2", "--timeout", "100s", "-v", "6")
	if !strings.Contains(res.Stdout, "Pool summary: 2 node(s), 2 drained") || !strings.Contains(res.Stdout, "4 pod(s) of 2 workload(s) terminated") {
		t.Fatalf("exit %d, want the 2 nodes drained and 4 pods judged:\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	// A watch is counted where it opens: each stream opens with one watch
	// list (sendInitialEvents=true). The watches it resumes after a
	// dropped connection, and the List and watch it falls back to when
	// the API server cannot serve the watch list in time, are the same
	// stream's: logged, not counted.
	reqs := e2e.ClientRequests(res.Stderr)
	podWatches, budgetWatches := map[string]int{}, 0
	for _, r := range reqs {
		if !r.OpensWatchList() {
			continue
		}
		u, err := url.Parse(r.URL)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("opens: watch %s?%s x%d", u.Path, u.Query().Get("fieldSelector"), r.Count)
		switch {
		case strings.HasSuffix(u.Path, "/poddisruptionbudgets"):
			budgetWatches += r.Count
		case strings.HasSuffix(u.Path, "/pods"):
			node, _ := strings.CutPrefix(u.Query().Get("fieldSelector"), "spec.nodeName=")
			podWatches[node] += r.Count
		}
	}
	for target, rep := range e2e.StreamRepeats(reqs) {
		t.Logf("same stream: %s: %d watches resumed, %d lists", target, rep.Watches, rep.Lists)
	}
	gets := 0
	for _, r := range reqs {
		if r.Kind() == "GET pods" && podGet.MatchString(r.URL) {
			gets += r.Count
		}
	}
	t.Logf("%d GETs of single pods", gets)
	if gets >= 4 {
		t.Errorf("%d GETs of single pods for 4 evicted pods, want fewer than one per pod: the drain's wait reads the shared watch", gets)
	}
	for _, n := range nodes {
		if podWatches[n] != 1 {
			t.Errorf("node %s: %d watches of its pods, want 1 (the drain and the node watch share it)", n, podWatches[n])
		}
	}
	if len(podWatches) != len(nodes) {
		t.Errorf("pods watched by %v, want one watch per node of %v", podWatches, nodes)
	}
	if budgetWatches != 1 {
		t.Errorf("%d watches of PodDisruptionBudgets, want 1 (the pacing and the node watch share it)", budgetWatches)
	}
}
