package main

import (
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

// A second Ctrl-C exits without the summary; what it leaves cordoned is
// named on stderr: the pool's nodes this drain cordoned or found cordoned,
// not those it never reached, not one uncordoned after its failure, and a
// hostile node name escaped.
func TestSecondInterruptNamesTheNodesLeftCordoned(t *testing.T) {
	w := &drainWatcher{}
	w.NodesCordoned([]*drain.NodeResult{
		{Node: "pool-a", CordonedByUs: true},
		{Node: "pool-b", Preflight: &drain.PreflightReport{AlreadyCordoned: true}},
		{Node: "pool-c"}, // not reached before the first Ctrl-C
		{Node: "pool-d", CordonedByUs: true},
		{Node: "pool-\x1b[2Je", CordonedByUs: true},
	})
	w.NodeDone(&drain.NodeResult{Node: "pool-d", CordonedByUs: true, Uncordoned: true})

	ctx, in, errOut, exitedAt := testInterrupt(t)
	onInterrupt(ctx, w.stopNote)
	in.signalled()
	if strings.Contains(errOut.String(), "left cordoned") {
		t.Errorf("the first Ctrl-C already lists nodes (the summary will): %q", errOut.String())
	}
	errOut.Reset()
	in.signalled()
	if *exitedAt != ExitInterruptedTwice {
		t.Fatalf("exit %d, want %d", *exitedAt, ExitInterruptedTwice)
	}
	lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "left cordoned: ") {
		t.Fatalf("stderr %q, want the exit line then a left-cordoned line", errOut.String())
	}
	left := lines[1]
	for _, n := range []string{"pool-a", "pool-b", `pool-\x1b[2Je`, "kubectl uncordon "} {
		if !strings.Contains(left, n) {
			t.Errorf("%q does not name %q", left, n)
		}
	}
	for _, n := range []string{"pool-c", "pool-d", "\x1b"} {
		if strings.Contains(left, n) {
			t.Errorf("%q names %q", left, n)
		}
	}
}

// One node: once its evictions started it is cordoned; a drain stopped
// before that leaves nothing to name.
func TestSecondInterruptOneNode(t *testing.T) {
	w := &drainWatcher{}
	if got := w.stopNote().Left; got != "" {
		t.Errorf("before any cordon: %q", got)
	}
	w.EvictionsStarted("node-1", &drain.Tracker{})
	if got := w.stopNote().Left; !strings.Contains(got, "left cordoned: node-1 ") {
		t.Errorf("after the cordon: %q", got)
	}
}
