package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

// A plain progress line has one clock, "+S.s s"; under a writer that
// stamps each line (drain node --watch), none of its own.
func TestProgressLineClock(t *testing.T) {
	pp := drain.PodProgress{Namespace: "shop", Name: "web-1", State: drain.StateEvicting}
	for _, stamped := range []bool{false, true} {
		var b bytes.Buffer
		text := NewText(&b, false, 0)
		if stamped {
			text.SetStamped(12, false)
		}
		text.progress.Changed(pp)
		line := b.String()
		switch {
		case !stamped && !strings.HasPrefix(strings.TrimLeft(line, " "), "+0.0 s  shop/web-1"):
			t.Errorf("plain line %q: want it to start with +0.0 s", line)
		case stamped && (strings.Contains(line, "+") || !strings.HasPrefix(line, "shop/web-1")):
			t.Errorf("stamped line %q: want no clock of its own", line)
		}
	}
}

// Under --watch (stamped) the drain leaves out the terminating and gone
// lines of its evictions, which the watch's own lines say; a pod gone
// otherwise (another client's delete) keeps its line.
func TestStampedProgressLeavesWatchLinesOut(t *testing.T) {
	var b bytes.Buffer
	text := NewText(&b, false, 0)
	text.SetStamped(12, false)
	for _, pp := range []drain.PodProgress{
		{Namespace: "shop", Name: "web-1", State: drain.StateEvicting},
		{Namespace: "shop", Name: "web-1", State: drain.StateTerminating},
		{Namespace: "shop", Name: "web-1", State: drain.StateGone, GoneBy: drain.GoneByEviction},
		{Namespace: "shop", Name: "web-2", State: drain.StateGone, GoneBy: drain.GoneByOther},
	} {
		text.progress.Changed(pp)
	}
	if lines := strings.Split(strings.TrimSpace(b.String()), "\n"); len(lines) != 2 || !strings.Contains(lines[0], "evicting") || !strings.Contains(lines[1], "web-2") {
		t.Errorf("lines %q: want the evicting line and web-2's", lines)
	}
}
