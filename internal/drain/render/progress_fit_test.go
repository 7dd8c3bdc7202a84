package render

import (
	"bytes"
	"strings"
	"testing"

	trender "github.com/kubectl-graceful/kubectl-graceful/internal/timeline/render"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

// Under drain node --watch a plain progress line is a live line: with the
// stamp it fits the watch's LineWidth, a pod name of 63 characters elided
// to its ReplicaSet's hash and suffix and the cause cut; --wide keeps
// both whole, and so does a drain without --watch.
func TestStampedProgressLinesFit(t *testing.T) {
	const stamp = 12
	pp := drain.PodProgress{Namespace: "shop", Name: "checkout-frontend-with-a-very-long-deployment-name-7d9f8b-x2k4q", State: drain.StateBlocked, Attempts: 3,
		Cause: "Cannot evict pod as it would violate the pod's disruption budget. The disruption budget checkout-frontend needs 3 healthy pods and has 3 currently"}
	for _, c := range []struct {
		name          string
		stamped, wide bool
		pool          bool
	}{
		{"drain --watch", true, false, false},
		{"drain --watch, nodes at once", true, false, true},
		{"drain --watch --wide", true, true, false},
		{"drain", false, false, false},
	} {
		var b bytes.Buffer
		text := NewText(&b, false, 0)
		if c.stamped {
			text.SetStamped(stamp, c.wide)
		}
		if c.pool {
			text.SetConcurrentNodes(2)
			text.NodePodChanged("ip-10-0-113-207.eu-central-1.compute.internal", pp)
		} else {
			text.PodChanged(pp)
		}
		line := strings.TrimSuffix(b.String(), "\n")
		fitted := c.stamped && !c.wide
		switch {
		case fitted && (len([]rune(line))+stamp > trender.LineWidth || !strings.Contains(line, "…-7d9f8b-x2k4q ") || !strings.HasSuffix(line, "…")):
			t.Errorf("%s: %d columns with the stamp, want at most %d, the name elided, the cause cut: %q", c.name, len([]rune(line))+stamp, trender.LineWidth, line)
		case !fitted && (!strings.Contains(line, pp.Namespace+"/"+pp.Name) || !strings.HasSuffix(line, pp.Cause)):
			t.Errorf("%s: want the whole name and cause: %q", c.name, line)
		}
	}
}
