package render

import (
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// TestMermaidWindowFollowsTheVerdict: the chart marks a window as the
// verdict judged it, not by its sign alone: a short positive window is a
// risk, a negative one the verdict could not order is not called a race.
func TestMermaidWindowFollowsTheVerdict(t *testing.T) {
	cases := []struct {
		name         string
		raced, short bool
		window       int64
		want         string
	}{
		{"race", true, false, -14, "    race window 14 ms :crit, 100, 14ms\n"},
		{"too short", false, true, 97, "    window too short 97 ms :crit, 100, 14ms\n"},
		{"order unknown", false, false, -14, "    window -14 ms, order unknown :active, 100, 14ms\n"},
		{"margin", false, false, 5000, "    margin 5000 ms :done, 100, 14ms\n"},
	}
	for _, c := range cases {
		var b strings.Builder
		v := timeline.Verdict{BehindService: true, WindowMs: &c.window, EndpointOutMs: new(int64(100)), StopMs: new(int64(114))}
		writeMermaidWindow(&b, "", v, c.raced, c.short)
		if b.String() != c.want {
			t.Errorf("%s: got %q, want %q", c.name, b.String(), c.want)
		}
	}
}
