package timeline

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

// An Event delivered 3.5 s after its server time, on a connected watch, is
// a stall: marked like a gap, printed as it is seen, counted in the
// verdict.
func TestRecorderMarksStalledEvent(t *testing.T) {
	pod := testPod(30, sleepHook(5))
	r := NewRecorder(pod, nil, at(-100))
	var printed []Gap
	r.Stall = func(g Gap) { printed = append(printed, g) }
	r.MarkT0(at(0), T0DeleteSent, "DELETE sent")
	r.feedPod(at(5), watch.Modified, deleting(pod, at(0)))
	r.feedEvent(at(3500), kubeEvent("k", "Normal", "Killing", "Stopping container app", at(0)), false)
	r.feedEvent(at(3600), kubeEvent("u", "Warning", "Unhealthy", "Readiness probe failed", at(100)), false)
	if len(r.TL.Gaps) != 1 || len(printed) != 1 {
		t.Fatalf("gaps %+v printed %d: want one stall (the second late event merged into it)", r.TL.Gaps, len(printed))
	}
	g := r.TL.Gaps[0]
	if !g.Stalled || g.Stream != "Events" || !g.From.Equal(at(0)) || !g.To.Equal(at(3600)) || !strings.Contains(g.Reason, "Killing arrived 3500 ms after") {
		t.Errorf("stall %+v", g)
	}
	// Its line (render.WriteGapLine, tested there) is made of these.
	if p := printed[0]; !p.Stalled || p.Stream != "Events" || !strings.Contains(p.Reason, "Killing arrived 3500 ms after the server's time for it") {
		t.Errorf("printed %+v, want the stall of the Events watch", p)
	}
	if v := compute(r.TL); !hasFinding(v, "the watch stalled 1 time(s)") || hasFinding(v, "was cut") {
		t.Errorf("findings %v", v.Findings)
	}
}

// Our own delete seen 2.6 s after we sent it is a stall of the pod watch;
// 1.5 s late is not.
func TestRecorderMarksStalledDeletion(t *testing.T) {
	for _, c := range []struct {
		recv   int64
		stalls int
	}{{2600, 1}, {1500, 0}} {
		pod := testPod(30, nil)
		r := NewRecorder(pod, nil, at(-100))
		r.MarkT0(at(0), T0DeleteSent, "DELETE sent")
		r.feedPod(at(c.recv), watch.Modified, deleting(pod, at(0)))
		if len(r.TL.Gaps) != c.stalls || (c.stalls == 1 && r.TL.Gaps[0].Stream != "pod") {
			t.Errorf("deletion seen at +%d ms: gaps %+v, want %d stall(s)", c.recv, r.TL.Gaps, c.stalls)
		}
	}
}

// A change late because its watch was cut is explained by the gap; a
// change that arrives before the server's time for it means the clocks
// disagree, and stalls are no longer judged.
func TestRecorderStallNotMarkedInGapOrUnderSkew(t *testing.T) {
	pod := testPod(30, nil)
	r := NewRecorder(pod, nil, at(-100))
	r.MarkT0(at(0), T0DeleteSent, "DELETE sent")
	r.Handle(listwatch.Notice{Stream: "Events", Recv: at(500), Kind: listwatch.KindGapOpen})
	r.Handle(listwatch.Notice{Stream: "Events", Recv: at(4000), Kind: listwatch.KindGapClose, Relisted: true})
	r.feedEvent(at(4000), kubeEvent("k", "Normal", "Killing", "Stopping container", at(1000)), false)
	if len(r.TL.Gaps) != 1 || r.TL.Gaps[0].Stalled {
		t.Errorf("gaps %+v: the late Event is inside the cut", r.TL.Gaps)
	}
	skew := NewRecorder(pod, nil, at(-100))
	skew.MarkT0(at(0), T0DeleteSent, "DELETE sent")
	skew.feedEvent(at(20), kubeEvent("k", "Normal", "Killing", "Stopping container", at(5000)), false)
	skew.feedEvent(at(9000), kubeEvent("u", "Warning", "Unhealthy", "probe failed", at(100)), false)
	if len(skew.TL.Gaps) != 0 || len(skew.TL.Notes) != 1 || !strings.Contains(skew.TL.Notes[0], "clock") {
		t.Errorf("gaps %+v notes %v: want no stall and a note on the clocks", skew.TL.Gaps, skew.TL.Notes)
	}
}

// An Event its reporter sent late (stored 3 s after its own time) is not a
// stall of our watch when it arrives at once after being stored.
func TestRecorderStallMeasuredFromStorage(t *testing.T) {
	pod := testPod(30, nil)
	r := NewRecorder(pod, nil, at(-100))
	r.MarkT0(at(0), T0DeleteSent, "DELETE sent")
	ev := kubeEvent("k", "Normal", "Killing", "Stopping container", at(0))
	ev.CreationTimestamp = metav1.NewTime(at(3000))
	r.feedEvent(at(3100), ev, false)
	if len(r.TL.Gaps) != 0 {
		t.Errorf("gaps %+v: the Event was stored late, the watch was not", r.TL.Gaps)
	}
}
