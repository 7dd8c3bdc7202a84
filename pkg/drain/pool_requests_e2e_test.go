package drain_test

import (
	"regexp"
	"testing"
)

// podGetLine matches client-go's -v 6 log of a GET of one pod.
var podGetLine = regexp.MustCompile(`verb="GET" url="[^"]*/api/v1/namespaces/[^/"]+/pods/[^/"?]+[?"]`)

// A pool of 2 nodes holding 12 pods of 2 Deployments under PDBs of
// minAvailable 2 and maxUnavailable 1, drained 2 nodes at a time: every pod is still evicted once and seen gone (the
// report and the cluster agree), and the library's wait for each pod's
// deletion is answered by one watch of each node's pods, not by a GET of
// each pod once a second: fewer pod GETs than pods in the whole drain.
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
	gets := len(podGetLine.FindAllString(stderr, -1))
	t.Logf("%d GETs of single pods for 12 evicted pods", gets)
	if gets >= 12 {
		t.Errorf("%d GETs of single pods for 12 evicted pods, want fewer than one per pod: the wait for deletion reads the node's pod watch", gets)
	}
}
