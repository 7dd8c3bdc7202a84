package drain_test

import (
	"strings"
	"testing"
)

// The pool command refuses with the capacity blocker under
// --dry-run (exit 2) and without it (exit 2, nothing cordoned).
func TestPoolNoCapacityThroughTheCommand(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	p1, p2, s1, s2, selector := f.poolWithoutRoom()
	want := "the pods the pool evicts request 4 CPU / 4 GiB / 4 pods; the 2 schedulable node(s) outside it they may use have 2 CPU / 4 GiB / 220 pods free"
	for _, args := range [][]string{{"-l", selector, "--dry-run"}, {"-l", selector, "--timeout", "30s"}} {
		res := f.drain(args...)
		expect(t, res, 2, "[pool-no-capacity] "+want, "Pool verdict: would not start: pool-no-capacity")
		if !strings.Contains(res.Stdout, "FREE OUTSIDE POOL") {
			t.Errorf("no capacity table")
		}
		for _, n := range []string{p1, p2, s1, s2} {
			if f.unschedulable(n) {
				t.Errorf("%v: node %s cordoned", args, n)
			}
		}
	}
	// A selector matching every node: the pool refuses, nothing cordoned.
	res := f.drain("-l", "type=kwok", "--timeout", "30s")
	if res.ExitCode != 2 || !strings.Contains(res.Stdout, "nowhere for the") {
		t.Errorf("every node: exit %d, want 2 and nowhere for the pods to go", res.ExitCode)
	}
	for _, n := range []string{p1, p2, s1, s2, "kwok-node-0"} {
		if f.unschedulable(n) {
			t.Errorf("every node: node %s cordoned", n)
		}
	}
}
