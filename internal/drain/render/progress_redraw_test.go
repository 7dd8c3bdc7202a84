package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

// On a terminal the view redraws every pod the drain's Events told of,
// with each change PodChanged gave, in namespace and name order.
func TestProgressRedrawsWhatTheEventsTold(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b, true, 0)
	p.Start("n1", []drain.PodProgress{
		{Namespace: "shop", Name: "web-b", State: drain.StatePending},
		{Namespace: "shop", Name: "web-a", State: drain.StatePending},
	})
	p.Changed(drain.PodProgress{Namespace: "shop", Name: "web-a", State: drain.StateGone, Attempts: 1})
	p.Changed(drain.PodProgress{Namespace: "shop", Name: "web-b", State: drain.StateBlocked, Attempts: 2, Cause: "budget web"})
	p.Stop()
	out := b.String()
	last := out[strings.LastIndex(out, "draining node n1"):]
	lines := strings.Split(strings.TrimSpace(last), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "draining node n1: 1/2 gone, 0 terminating, 1 blocked") {
		t.Fatalf("last redraw:\n%s", last)
	}
	if !strings.Contains(lines[1], "shop/web-a") || !strings.Contains(lines[2], "shop/web-b") ||
		!strings.Contains(lines[2], "(attempt 2) budget web") {
		t.Errorf("pod lines:\n%s", last)
	}
}
