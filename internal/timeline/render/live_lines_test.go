package render_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/rollouttest"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timeline/render"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/nodewatch"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// By default a live line of the node watch fits 120 columns, a long
// message cut to fit, with one clock (ms since the first deletion), none
// under drain --watch's stamp; --wide has every column and the whole
// message.
func TestNodeLinesFit120Columns(t *testing.T) {
	r := rollouttest.Rollout(t)
	w, _ := drainOf(r)
	tl := r.Pods[1]
	long := timeline.Event{Recv: timelinetest.At(1392), Server: timelinetest.At(1000), Track: timeline.Kubelet,
		Message: "container web exited 0 (Completed): clean exit " + strings.Repeat("and more detail ", 20) + "END"}
	for _, c := range []struct {
		name       string
		o          render.NodeLines
		fits, wide bool
	}{
		{"default", render.NodeLines{}, true, false},
		{"stamped", render.NodeLines{Stamped: true, StampWidth: 13}, true, false},
		{"wide", render.NodeLines{Wide: true}, false, true},
	} {
		var b bytes.Buffer
		render.NodeLinePrinter(&b, c.o).PodEvent(w, "n1", r, tl, long)
		line := strings.TrimSuffix(b.String(), "\n")
		width := len([]rune(line)) + c.o.StampWidth
		clocks := strings.Count(line, " ms") + strings.Count(line, timelinetest.At(1000).UTC().Format("15:04:05"))
		switch {
		case strings.Contains(line, "\n"):
			t.Errorf("%s: more than one line for an event: %q", c.name, line)
		case c.fits && (width > render.LineWidth || !strings.HasSuffix(line, "…") || !strings.Contains(line, "shop/web-1")):
			t.Errorf("%s: %d columns, want at most %d, the message cut, the pod named: %q", c.name, width, render.LineWidth, line)
		case c.wide && (!strings.HasSuffix(line, "END") || !strings.Contains(line, "shop/Deployment/web") || clocks != 2):
			t.Errorf("%s: want the whole message, the workload and both clocks: %q", c.name, line)
		case !c.wide && clocks != map[bool]int{true: 0, false: 1}[c.o.Stamped]:
			t.Errorf("%s: %d clocks in %q", c.name, clocks, line)
		}
	}
}

// By default a live line of `watch pod` and of the rollout watch fits 120
// columns, its message cut and ending in "…", the pod named whole; --wide
// has the whole message.
func TestPodAndRolloutLinesFit120Columns(t *testing.T) {
	r := rollouttest.Rollout(t)
	tl := r.Pods[1]
	long := timeline.Event{Recv: timelinetest.At(1392), Server: timelinetest.At(1000), Track: timeline.Kubelet, Kind: timeline.KindContainerExit,
		Message: "container web exited 0 (Completed): clean exit " + strings.Repeat("and more detail ", 20) + "END"}
	pod := func(wide bool) string {
		var b bytes.Buffer
		render.PodLinePrinter(&b, wide).Event(tl, long)
		return b.String()
	}
	rolloutLine := func(wide bool) string {
		var b bytes.Buffer
		p := render.RolloutLinePrinter(&b, wide)
		p.PodEvent(r, tl, long)
		p.Capacity(r, "shop/checkout-frontend-canary", rollout.CapacitySample{Recv: timelinetest.At(1500), Ready: 2, Desired: 3})
		p.Status(r, rollout.StatusChange{Recv: timelinetest.At(1600), Message: "replica set web-2 " + strings.Repeat("scaled ", 30) + "END"})
		return b.String()
	}
	for name, out := range map[string]string{"watch pod": pod(false), "rollout": rolloutLine(false)} {
		for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if n := len([]rune(line)); n > render.LineWidth || !strings.HasSuffix(line, "…") {
				t.Errorf("%s: %d columns, want at most %d and the message cut: %q", name, n, render.LineWidth, line)
			}
		}
	}
	if out := rolloutLine(false); !strings.Contains(out, tl.Pod+" ") || !strings.Contains(out, "Service shop/checkout-frontend-canary ") {
		t.Errorf("rollout: a name was cut:\n%s", out)
	}
	for _, c := range []struct {
		name string
		out  string
		ends int
	}{{"watch pod --wide", pod(true), 1}, {"rollout --wide", rolloutLine(true), 2}} {
		if strings.Count(c.out, "END\n") != c.ends || strings.Contains(c.out, "…") {
			t.Errorf("%s: want whole messages:\n%s", c.name, c.out)
		}
	}
}

// The rollout watch's live lines have one clock by default, the ms since
// the rollout's start (100 ms before At(0)); --wide adds the server's time
// after it.
func TestRolloutLinesOneClockUnlessWide(t *testing.T) {
	r := rollouttest.Rollout(t)
	tl := r.Pods[1]
	e := timeline.Event{Recv: timelinetest.At(1392), Server: timelinetest.At(1000), Track: timeline.Kubelet, Message: "Event Normal Killing: Stopping container web"}
	server := timelinetest.At(1000).UTC().Format("15:04:05")
	for wide, want := range map[bool][]string{
		false: {"  +1492 ms  web-1  ", "  +1492 ms  Service web  ", "  +1492 ms  deployment/web  "},
		true:  {"  +1492 ms  " + server + "  web-1  ", "  +1492 ms  --:--:--  Service web  ", "  +1492 ms  --:--:--  deployment/web  "},
	} {
		var b bytes.Buffer
		p := render.RolloutLinePrinter(&b, wide)
		p.PodEvent(r, tl, e)
		p.Capacity(r, "web", rollout.CapacitySample{Recv: e.Recv, Ready: 2, Desired: 3})
		p.Status(r, rollout.StatusChange{Recv: e.Recv, Message: "rolled out"})
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		for i, l := range lines {
			if i >= len(want) || !strings.HasPrefix(l, want[i]) {
				t.Errorf("wide %v: line %q, want it to start %q", wide, l, want[min(i, len(want)-1)])
			}
		}
	}
}

// A node's Event or condition is one node line, subject "Node NAME", its
// words escaped, whether stamped by drain --watch or not; -o json gives it
// whole as a node-event line.
func TestNodeEventLine(t *testing.T) {
	w, _ := drainOf(rollouttest.Rollout(t))
	e := nodewatch.NodeEvent{Node: "n1", Type: "Warning", Reason: "ScaleDownFailed", Message: "drain failed\x1b[2J", By: "cluster-autoscaler",
		Recv: timelinetest.At(1500), Time: timelinetest.At(1400)}
	for _, o := range []render.NodeLines{{}, {Stamped: true, StampWidth: 13}, {Wide: true}} {
		var b bytes.Buffer
		render.NodeLinePrinter(&b, o).NodeEvent(w, e)
		line := b.String()
		if strings.Count(line, "\n") != 1 || strings.Contains(line, "\x1b") || !strings.Contains(line, `Warning Event ScaleDownFailed by cluster-autoscaler: drain failed\x1b[2J`) ||
			!strings.Contains(line, "Node n1") || !strings.Contains(line, "node ") || (!o.Wide && len([]rune(line))-1+o.StampWidth > render.LineWidth) {
			t.Errorf("%+v: %q", o, line)
		}
	}
	var b bytes.Buffer
	render.NodeJSONPrinter(&b).NodeEvent(w, e)
	if !strings.Contains(b.String(), `"type":"node-event"`) || !strings.Contains(b.String(), `"by":"cluster-autoscaler"`) || strings.Contains(b.String(), "\x1b") {
		t.Errorf("json: %s", b.String())
	}
}

// A condition the kubelet turns because every container ended (reason
// PodCompleted) follows from the exit line: the compact live lines of the
// three watches leave it out, --wide keeps it, and any other condition
// is printed.
func TestLiveLinesLeaveOutConditionsThatFollowTheExit(t *testing.T) {
	r := rollouttest.Rollout(t)
	w, _ := drainOf(r)
	tl := r.Pods[1]
	completed := timeline.Event{Recv: timelinetest.At(1392), Track: timeline.Kubelet, Kind: timeline.KindCondition, Message: "condition Ready=False (PodCompleted)"}
	notReady := timeline.Event{Recv: timelinetest.At(1392), Track: timeline.Kubelet, Kind: timeline.KindCondition, Message: "condition Ready=False (ContainersNotReady)"}
	for _, wide := range []bool{false, true} {
		printers := map[string]func(io.Writer, timeline.Event){
			"pod": func(out io.Writer, e timeline.Event) { render.PodLinePrinter(out, wide).Event(tl, e) },
			"rollout": func(out io.Writer, e timeline.Event) {
				render.RolloutLinePrinter(out, wide).PodEvent(r, tl, e)
			},
			"node": func(out io.Writer, e timeline.Event) {
				render.NodeLinePrinter(out, render.NodeLines{Wide: wide}).PodEvent(w, "n1", r, tl, e)
			},
		}
		for name, print := range printers {
			var b bytes.Buffer
			print(&b, completed)
			print(&b, notReady)
			out := b.String()
			if got := strings.Contains(out, "PodCompleted"); got != wide {
				t.Errorf("%s, wide %v: PodCompleted printed %v, want %v:\n%s", name, wide, got, wide, out)
			}
			if !strings.Contains(out, "ContainersNotReady") {
				t.Errorf("%s, wide %v: the other condition is missing:\n%s", name, wide, out)
			}
		}
	}
}
