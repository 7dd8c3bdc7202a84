package drain_test

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// cordonReport is the part of -o json these tests read.
type cordonReport struct {
	Nodes []struct {
		Node    string `json:"node"`
		Outcome string `json:"outcome"`
		Pods    []struct {
			Name   string `json:"name"`
			GoneBy string `json:"goneBy"`
		} `json:"pods"`
		CordonedByUs    bool   `json:"cordonedByUs"`
		Uncordoned      bool   `json:"uncordoned"`
		UncordonSkipped string `json:"uncordonSkipped"`
		After           *struct {
			Known         bool     `json:"known"`
			Unschedulable bool     `json:"unschedulable"`
			NewPods       []string `json:"newPods"`
		} `json:"after"`
	} `json:"nodes"`
}

// frozenNode makes a node with two pods of web that a PDB with
// maxUnavailable 0 keeps there, and room on a second node.
func frozenNode(t *testing.T, f *fixture) string {
	t.Helper()
	a, _ := f.onOneOfTwo("web", "web", 2)
	f.pdb("frozen", "web", nil, intOrStr(0), nil, 2)
	return a
}

// drainAsync starts a drain and returns a function waiting for its result.
func drainAsync(f *fixture, args ...string) func() e2e.Result {
	return drainAsyncFor(f, 2*time.Minute, args...)
}

// drainAsyncFor is drainAsync giving up after limit (fixture.drainFor).
func drainAsyncFor(f *fixture, limit time.Duration, args ...string) func() e2e.Result {
	var res e2e.Result
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		res = f.drainFor(limit, args...)
	}()
	return func() e2e.Result { wg.Wait(); return res }
}

// waitCordoned waits until node is cordoned and its evictions have had
// time to be refused.
func waitCordoned(t *testing.T, f *fixture, node string) {
	t.Helper()
	e2e.WaitFor(t, time.Minute, "node "+node+" cordoned", func() bool { return f.unschedulable(node) })
	time.Sleep(2 * time.Second)
}

// Two drains of one node at once: exactly one cordoned it, by the result of
// its own preconditioned patch; the other's --uncordon-on-failure leaves
// the node alone.
func TestDrainConcurrentDrainsOfOneNode(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := frozenNode(t, f)
	args := []string{a, "--timeout", "8s", "--uncordon-on-failure", "-o", "json"}
	first, second := drainAsync(f, args...), drainAsync(f, args...)
	results := []e2e.Result{first(), second()}
	cordoners := 0
	for i, res := range results {
		var r cordonReport
		if err := json.Unmarshal([]byte(res.Stdout), &r); err != nil || len(r.Nodes) != 1 {
			t.Fatalf("drain %d: -o json output unreadable (%v): %s", i, err, res.Stdout)
		}
		n := r.Nodes[0]
		if res.ExitCode != 2 {
			t.Errorf("drain %d: exit %d, want 2 (timed out)", i, res.ExitCode)
		}
		if n.CordonedByUs {
			cordoners++
		} else if n.Uncordoned {
			t.Errorf("drain %d uncordoned a node it did not cordon", i)
		}
	}
	if cordoners != 1 {
		t.Errorf("%d drains say they cordoned the node, want exactly 1", cordoners)
	}
}

// We cordon, another client uncordons and cordons again: our
// --uncordon-on-failure must not undo their cordon.
func TestDrainUncordonOnFailureSparesAnotherCordon(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := frozenNode(t, f)
	wait := drainAsync(f, a, "--timeout", "15s", "--uncordon-on-failure")
	waitCordoned(t, f, a)
	for _, verb := range []string{"uncordon", "cordon"} {
		if r := f.env.Kubectl(t, verb, a); r.ExitCode != 0 {
			t.Fatalf("kubectl %s: %s", verb, r.Stderr)
		}
	}
	res := wait()
	expect(t, res, 2, "NOT drained: --timeout reached", "stays cordoned: not uncordoned (--uncordon-on-failure) because another client cordoned it again after this drain (kubectl")
	if !f.unschedulable(a) {
		t.Errorf("node %s was uncordoned: the drain undid another client's cordon", a)
	}
}
