package timeline

import (
	"strings"
	"testing"
)

// A hardened pod (6 s preStop) whose Events watch was cut: the verdict is
// "cannot tell" (a risk, exit 2) when the cut could have hidden or moved a
// change while the race was decided, and SAFE otherwise.
func TestVerdictOnAPartialTimeline(t *testing.T) {
	cases := []struct {
		name       string
		gap        Gap
		cannotTell bool
	}{
		{"cut across Killing, resumed", Gap{Stream: StreamEvents, From: at(10), To: at(300)}, true},
		{"re-listed during the preStop", Gap{Stream: StreamEvents, From: at(1000), To: at(2000), Relisted: true}, true},
		{"still open at the end", Gap{Stream: StreamPods, From: at(3000)}, true},
		{"stalled during the preStop", Gap{Stream: StreamEvents, From: at(1000), To: at(1500), Stalled: true}, true},
		{"resumed with nothing to deliver", Gap{Stream: StreamEvents, From: at(1000), To: at(2000)}, false},
		{"after the race was decided", Gap{Stream: StreamEndpointSlices, From: at(6600), To: at(6700), Relisted: true}, false},
	}
	for _, c := range cases {
		tl := terminate(t, 30, true, 6, []string{"web"}, 7000, 0, nil)
		tl.Gaps = append(tl.Gaps, c.gap)
		v := ComputeWith(tl, Options{})
		if v.CannotTell != c.cannotTell || v.Risk != c.cannotTell {
			t.Errorf("%s: cannotTell %v risk %v, want %v; findings %q", c.name, v.CannotTell, v.Risk, c.cannotTell, v.Findings)
		}
		if c.cannotTell && (!strings.Contains(v.Findings[0], "cannot tell: the "+c.gap.Stream+" watch(es) were cut or stalled") || len(v.PartialStreams) != 1) {
			t.Errorf("%s: findings %q, partial %v", c.name, v.Findings, v.PartialStreams)
		}
	}
}

// A race seen is a race, gap or not: the headline stays RISK, not
// "cannot tell".
func TestPartialTimelineKeepsASeenRace(t *testing.T) {
	tl := terminate(t, 30, false, 0, []string{"web"}, 1000, 0, nil)
	tl.Gaps = append(tl.Gaps, Gap{Stream: StreamEvents, From: at(10), To: at(300)})
	v := ComputeWith(tl, Options{})
	if !v.Risk || v.CannotTell {
		t.Errorf("risk %v cannotTell %v: %q", v.Risk, v.CannotTell, v.Findings)
	}
}
