package main

import (
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

// A second Ctrl-C exits without the summary; what it leaves cordoned is
// named on stderr: the nodes this drain cordoned or found cordoned (as the
// drain tells them, drain.Events.NodeCordoned), not one it uncordoned after a
// failure, not one never cordoned, and a hostile node name escaped.
func TestSecondInterruptNamesTheNodesLeftCordoned(t *testing.T) {
	w := newDrainWatcher()
	co := w.events(drain.Events{})
	co.NodeCordoned("pool-a", true)
	co.NodeCordoned("pool-b", false) // cordoned before the drain
	co.NodeCordoned("pool-d", true)
	co.NodeCordoned("pool-\x1b[2Je", true)
	co.NodeUncordoned("pool-d")
	// pool-c: the first Ctrl-C came before its cordon.

	_, in, errOut, exitedAt := testInterrupt(t)
	in.onStop(w.stopNote)
	in.signalled()
	if strings.Contains(errOut.String(), "left cordoned") {
		t.Errorf("the first Ctrl-C already lists nodes (the summary will): %q", errOut.String())
	}
	errOut.Reset()
	in.signalled()
	if *exitedAt != exitInterruptedTwice {
		t.Fatalf("exit %d, want %d", *exitedAt, exitInterruptedTwice)
	}
	lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "left cordoned: ") {
		t.Fatalf("stderr %q, want the exit line then a left-cordoned line", errOut.String())
	}
	left := lines[1]
	for _, n := range []string{"pool-a", "pool-b", `pool-\x1b[2Je`, "kubectl graceful uncordon "} {
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

// Before any cordon there is nothing to name; a node is named from its
// cordon on, evictions started or not, and no longer once uncordoned.
func TestSecondInterruptOneNode(t *testing.T) {
	w := newDrainWatcher()
	if got := w.stopNote().left; got != "" {
		t.Errorf("before any cordon: %q", got)
	}
	w.NodeCordoned("node-1", true)
	if got := w.stopNote().left; !strings.Contains(got, "left cordoned: node-1 ") {
		t.Errorf("after the cordon: %q", got)
	}
	w.NodeUncordoned("node-1")
	if got := w.stopNote().left; got != "" {
		t.Errorf("after the uncordon: %q", got)
	}
}
