package render_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/rollouttest"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timeline/render"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// longPod is a Deployment's pod name of 63 characters, the most a pod's
// hostname takes: its ReplicaSet's hash and its suffix tell it apart.
const longPod = "checkout-frontend-with-a-very-long-deployment-name-7d9f8b-x2k4q"

// An elided name fits its width, keeps its start and, for a Deployment's
// pod, its ReplicaSet's hash and suffix; a name that fits is whole.
func TestElideName(t *testing.T) {
	if len(longPod) != 63 {
		t.Fatalf("longPod has %d characters, want 63", len(longPod))
	}
	for _, c := range []struct {
		name        string
		width       int
		start, tail string
	}{
		{"web-7d9f8-x2k4q", 30, "web-7d9f8-x2k4q", ""},
		{longPod, 63, longPod, ""},
		{longPod, 30, "checkout-fronten", "-7d9f8b-x2k4q"},
		{longPod, 12, "checko", "x2k4q"}, // the hash and suffix leave too little of the start: half each
		{strings.Repeat("a", 80), 21, strings.Repeat("a", 10), strings.Repeat("a", 10)},
		{"shop/" + longPod, 40, "shop/checkout-frontend-wit", "-7d9f8b-x2k4q"},
	} {
		got := render.ElideName(c.name, c.width)
		n := len([]rune(got))
		switch {
		case n > c.width:
			t.Errorf("ElideName(%q, %d) = %q: %d columns", c.name, c.width, got, n)
		case c.tail == "" && got != c.name:
			t.Errorf("ElideName(%q, %d) = %q, want it whole", c.name, c.width, got)
		case c.tail != "" && (got != c.start+"…"+c.tail):
			t.Errorf("ElideName(%q, %d) = %q, want %q", c.name, c.width, got, c.start+"…"+c.tail)
		}
	}
	if got := render.ElideName(longPod, 1); got != "…" {
		t.Errorf("ElideName(longPod, 1) = %q", got)
	}
}

// printed is what one printer prints, narrow and wide, and the columns
// its narrow lines must fit.
type printed struct {
	name  string
	width int
	print func(b *bytes.Buffer, wide bool)
}

// out is what c prints, wide or not.
func (c printed) out(wide bool) string {
	var b bytes.Buffer
	c.print(&b, wide)
	return b.String()
}

// fits fails for a line of out wider than width columns, and returns the
// lines.
func fits(t *testing.T, what, out string, width int) []string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for _, l := range lines {
		if n := len([]rune(l)); n > width {
			t.Errorf("%s: a line of %d columns, want at most %d: %q", what, n, width, l)
		}
	}
	return lines
}

// A rollout's and a node's live lines with a pod name of 63 characters
// fit LineWidth columns, the name elided to its ReplicaSet's hash and
// suffix; --wide has the whole name.
func TestLiveLinesElideLongPodNames(t *testing.T) {
	r := rollouttest.Rollout(t)
	tl := *r.Pods[1]
	tl.Pod = longPod
	e := timeline.Event{Recv: timelinetest.At(1392), Server: timelinetest.At(1000), Track: timeline.Kubelet, Message: "container web exited 0 (Completed)"}
	w, _ := drainOf(r)
	many := *w
	many.Nodes = []string{"n1", "ip-10-0-113-207.eu-central-1.compute.internal.example.org"}
	for _, c := range []printed{
		{"rollout", render.LineWidth, func(b *bytes.Buffer, wide bool) {
			p := render.RolloutLinePrinter(b, wide)
			p.PodEvent(r, &tl, e)
			p.Status(r, rollout.StatusChange{Recv: timelinetest.At(1500), Pod: longPod, Message: "pod created"})
			p.Capacity(r, "shop/"+longPod, rollout.CapacitySample{Recv: timelinetest.At(1600), Ready: 2, Desired: 3})
		}},
		{"watch node", render.LineWidth, func(b *bytes.Buffer, wide bool) {
			render.NodeLinePrinter(b, render.NodeLines{Wide: wide}).PodEvent(w, "n1", r, &tl, e)
		}},
		{"watch node, two nodes", render.LineWidth, func(b *bytes.Buffer, wide bool) {
			render.NodeLinePrinter(b, render.NodeLines{Wide: wide}).PodEvent(&many, many.Nodes[1], r, &tl, e)
		}},
		{"drain --watch", render.LineWidth - 12, func(b *bytes.Buffer, wide bool) {
			render.NodeLinePrinter(b, render.NodeLines{Wide: wide, Stamped: true, StampWidth: 13}).PodEvent(&many, many.Nodes[1], r, &tl, e)
		}},
	} {
		for _, l := range fits(t, c.name, c.out(false), c.width) {
			if !strings.Contains(l, "…-7d9f8b-x2k4q ") || strings.Contains(l, longPod) {
				t.Errorf("%s: want the pod's name elided to its hash and suffix: %q", c.name, l)
			}
		}
		if wide := c.out(true); strings.Count(wide, longPod) != strings.Count(wide, "\n") {
			t.Errorf("%s --wide: want the whole name on every line:\n%s", c.name, wide)
		}
	}
}

// A live note wraps to LineWidth columns between words, nothing lost; a
// gap line is one line that fits, its reason cut before what the gap
// means; --wide has each on one line, whole.
func TestNoteAndGapLinesFit(t *testing.T) {
	r := rollouttest.Rollout(t)
	w, _ := drainOf(r)
	note := "following deployment/web in shop: 40 pods (selector app=web); Services selecting it: " + strings.Repeat("checkout-frontend-canary, ", 12) + "END"
	gap := timeline.Gap{Stream: "EndpointSlices", From: timelinetest.At(2000), Reason: "Get \"https://127.0.0.1:6443/apis/discovery.k8s.io/v1/endpointslices?watch=true\": " + strings.Repeat("connection reset by peer ", 8)}
	tl := r.Pods[0]
	for _, c := range []printed{
		{"watch pod", render.LineWidth, func(b *bytes.Buffer, wide bool) {
			p := render.PodLinePrinter(b, wide)
			p.Note(tl, note)
			p.Gap(tl, gap)
		}},
		{"rollout", render.LineWidth, func(b *bytes.Buffer, wide bool) {
			p := render.RolloutLinePrinter(b, wide)
			p.Note(r, note)
			p.Gap(r, gap)
		}},
		{"watch node", render.LineWidth, func(b *bytes.Buffer, wide bool) {
			p := render.NodeLinePrinter(b, render.NodeLines{Wide: wide})
			p.Note(w, note)
			p.Gap(w, gap)
		}},
		{"drain --watch", render.LineWidth - 12, func(b *bytes.Buffer, wide bool) {
			p := render.NodeLinePrinter(b, render.NodeLines{Wide: wide, Stamped: true, StampWidth: 13})
			p.Note(w, note)
			p.Gap(w, gap)
		}},
	} {
		lines := fits(t, c.name, c.out(false), c.width)
		last := lines[len(lines)-1]
		notes := strings.Join(lines[:len(lines)-1], " ")
		if strings.Join(strings.Fields(notes), " ") != "note: "+note || len(lines) < 3 {
			t.Errorf("%s: want the note wrapped whole:\n%s", c.name, strings.Join(lines, "\n"))
		}
		if !strings.Contains(last, "GAP: EndpointSlices watch lost (Get ") || !strings.HasSuffix(last, "…); reconnecting") {
			t.Errorf("%s: want the gap's reason cut, its meaning whole: %q", c.name, last)
		}
		if wide := c.out(true); strings.Count(wide, "\n") != 2 || !strings.Contains(wide, note+"\n") || !strings.Contains(wide, gap.Reason+"); reconnecting\n") {
			t.Errorf("%s --wide: want the note and the gap whole, one line each:\n%s", c.name, wide)
		}
	}
}
