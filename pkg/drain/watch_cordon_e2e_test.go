package drain_test

import (
	"strings"
	"testing"
)

// TestDrainWatchNamesItsOwnCordon: under --watch, the watch's note of the
// node this drain cordoned says so, not "cordoned by someone": no mark on
// the node names the drainer, but the drain knows its own cordon.
func TestDrainWatchNamesItsOwnCordon(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, b := f.env.Node(t), f.env.Node(t)
	f.placeOn([]string{b}, func() { f.deploy("web", "web", 1, f.pool(a, b), nil) })
	res := f.drain(a, "--watch", "--timeout", "60s")
	expect(t, res, 0, "node "+a+": cordoned by this drain; deadline: this drain's --timeout 1m0s, from the node's turn",
		"node "+a+" drained")
	if strings.Contains(res.Stdout, "node "+a+": cordoned by someone") {
		t.Errorf("the watch calls this drain's cordon someone's")
	}
}
