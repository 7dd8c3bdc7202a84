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
	pp := drain.PodProgress{Namespace: "shop", Name: "web-1", State: drain.StateTerminating}
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
