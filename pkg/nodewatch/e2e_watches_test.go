package nodewatch_test

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// watchURL is a watch request in the -v 6 request log.
var watchURL = regexp.MustCompile(`(?m)^.*verb="GET" url="([^"]*[?&]watch=true[^"]*)".*$`)

// podGet is a GET of one pod in the -v 6 request log.
var podGet = regexp.MustCompile(`verb="GET" url="[^"]*/api/v1/namespaces/[^/"]+/pods/[^/"?]+[?"]`)

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
	// The log may write a request more than once (one line per debugging
	// transport wrapped around it): the node watch's one watch of the
	// pods' Events, opened by nothing else, is the log's unit (the Events
	// about the nodes are a watch of their own).
	podWatches, budgetWatches, unit := map[string]int{}, 0, 0
	for _, m := range watchURL.FindAllStringSubmatch(res.Stderr, -1) {
		u, err := url.Parse(m[1])
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("watch %s?%s", u.Path, u.Query().Get("fieldSelector"))
		switch {
		case strings.HasSuffix(u.Path, "/events") && strings.Contains(u.Query().Get("fieldSelector"), "involvedObject.kind=Pod"):
			unit++
		case strings.HasSuffix(u.Path, "/poddisruptionbudgets"):
			budgetWatches++
		case strings.HasSuffix(u.Path, "/pods"):
			node, _ := strings.CutPrefix(u.Query().Get("fieldSelector"), "spec.nodeName=")
			podWatches[node]++
		}
	}
	if unit == 0 {
		t.Fatalf("no watch of the Events in the -v 6 log:\n%s", res.Stderr)
	}
	t.Logf("log lines per request: %d", unit)
	for n := range podWatches {
		podWatches[n] /= unit
	}
	budgetWatches /= unit
	gets := len(podGet.FindAllString(res.Stderr, -1)) / unit
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
