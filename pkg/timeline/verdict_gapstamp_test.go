package timeline

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

// resumedAfterDeletion plays a pod (preStop 5 s, Service web, deleted by
// someone else) whose cut watches came back after its termination had
// happened inside the gap: each watch replays what it missed at once, so
// the deletion, Killing, the endpoint leaving, the exit and the pod's
// removal all arrive within milliseconds of the resume, stamped late.
func resumedAfterDeletion(cut []string) *Timeline {
	return resumedAfterGaps(cut, [][2]int64{{-9000, 0}}, nil)
}

// resumedAfterGaps is resumedAfterDeletion with the cut watches cut over
// each of gaps in turn ({from, to} ms), nothing delivered between them,
// and extra, when set, fed after the resume.
func resumedAfterGaps(cut []string, gaps [][2]int64, extra func(r *Recorder)) *Timeline {
	pod := testPod(30, sleepHook(5))
	r := NewRecorder(pod, []string{"web"}, at(-10000))
	r.feedSlices(at(-9900), nil, true)
	r.feedSlice(at(-9800), watch.Added, readySlice("web-abc", "web"))
	for _, g := range gaps {
		for _, s := range cut {
			r.Handle(listwatch.Notice{Kind: listwatch.KindGapOpen, Stream: s, Recv: at(g[0]), Reason: "connection refused"})
		}
		for _, s := range cut {
			r.Handle(listwatch.Notice{Kind: listwatch.KindGapClose, Stream: s, Recv: at(g[1])})
		}
	}
	del := deleting(pod, at(-8000))
	r.feedPod(at(1), watch.Modified, del)
	r.feedEvent(at(3), kubeEvent("ev-kill", "Normal", "Killing", "Stopping container app", at(-8000)), false)
	r.feedSlice(at(5), watch.Modified, terminatingSlice("web-abc", "web"))
	r.feedPod(at(7), watch.Modified, exited(del, 0, at(-3000)))
	r.feedSlice(at(9), watch.Modified, slice("web-abc", "web", nil, nil, nil))
	r.feedPod(at(11), watch.Deleted, exited(del, 0, at(-3000)))
	if extra != nil {
		extra(r)
	}
	return r.TL
}

// A termination that happened wholly inside a gap is not judged on the
// late stamps of the resumed watches: whichever watches were cut, the
// verdict says it cannot tell and names what fell in the gap, never SAFE
// and never a race.
func TestVerdictOnATerminationInsideAGap(t *testing.T) {
	for _, cut := range [][]string{
		{StreamPods, StreamEndpointSlices, StreamEvents},
		{StreamEndpointSlices},
		{StreamPods, StreamEvents},
	} {
		tl := resumedAfterDeletion(cut)
		v := ComputeWith(tl, Options{})
		if !v.Risk || !v.CannotTell || v.Raced() || v.WindowShort() {
			t.Errorf("cut %v: risk %v cannotTell %v window %q; findings %q", cut, v.Risk, v.CannotTell, v.Window, v.Findings)
			continue
		}
		if !strings.HasPrefix(v.Findings[0], "cannot tell: ") || !strings.Contains(v.Findings[0], "fell in a gap") {
			t.Errorf("cut %v: first finding %q", cut, v.Findings[0])
		}
		for _, f := range v.Findings {
			if strings.Contains(f, "race window") || strings.Contains(f, "--propagation 5s met") {
				t.Errorf("cut %v: a claim on arrival times: %q", cut, f)
			}
		}
	}
}

// A watch whose reconnections failed again opened gap after gap: what it
// replayed at last may have happened in any of them, not only in the
// last, short one.
func TestVerdictOnATerminationInsideAChainOfGaps(t *testing.T) {
	cut := []string{StreamPods, StreamEndpointSlices, StreamEvents}
	tl := resumedAfterGaps(cut, [][2]int64{{-9000, -6000}, {-5990, -3000}, {-2990, -60}, {-50, 0}}, nil)
	v := ComputeWith(tl, Options{})
	if !v.CannotTell || v.Window != "" || hasFinding(v, "--propagation 5s met") {
		t.Errorf("cannotTell %v window %q; findings %q", v.CannotTell, v.Window, v.Findings)
	}
}

// The endpoint's removal seen only when the cut EndpointSlices watch
// resumed, after the SIGTERM estimate: its arrival is no time of the
// removal, so no race is claimed from it.
func TestEndpointRemovalStampedByAGapIsNoRace(t *testing.T) {
	tl := terminate(t, 30, true, 5, []string{"web"}, 7000, 0, func(r *Recorder) {
		r.Handle(listwatch.Notice{Kind: listwatch.KindGapOpen, Stream: StreamEndpointSlices, Recv: at(10), Reason: "connection refused"})
		r.Handle(listwatch.Notice{Kind: listwatch.KindGapClose, Stream: StreamEndpointSlices, Recv: at(6000), Relisted: true})
	})
	// The terminating change at +15 ms is replaced by the re-list's net
	// result: the endpoint removed, seen at +6001 ms.
	tl.Events = dropKind(tl.Events, KindEndpointChanged)
	for i, e := range tl.Events {
		if e.Kind == KindEndpointRemoved {
			tl.Events[i].Recv = at(6001)
		}
	}
	v := ComputeWith(tl, Options{})
	if !v.CannotTell || v.Raced() || hasFinding(v, "race window") {
		t.Errorf("cannotTell %v window %q; findings %q", v.CannotTell, v.Window, v.Findings)
	}
	if !hasFinding(v, "EndpointRemoved") {
		t.Errorf("the finding does not name the fact that fell in the gap: %q", v.Findings)
	}
}

// A risk that holds wherever in the gap the late facts happened stays the
// risk it is: no preStop delay, Killing stamped by a cut Events watch.
func TestGapStampedFactsKeepARiskThatHoldsEitherWay(t *testing.T) {
	tl := terminate(t, 30, false, 0, []string{"web"}, 1000, 0, func(r *Recorder) {
		r.Handle(listwatch.Notice{Kind: listwatch.KindGapOpen, Stream: StreamEvents, Recv: at(-2000)})
		r.Handle(listwatch.Notice{Kind: listwatch.KindGapClose, Stream: StreamEvents, Recv: at(18)})
	})
	v := ComputeWith(tl, Options{})
	if !v.Risk || v.CannotTell || v.Window != WindowTooShort {
		t.Errorf("risk %v cannotTell %v window %q: %q", v.Risk, v.CannotTell, v.Window, v.Findings)
	}
}

func dropKind(evs []Event, k Kind) []Event {
	var out []Event
	for _, e := range evs {
		if e.Kind != k {
			out = append(out, e)
		}
	}
	return out
}

// A termination inside a gap that also shows a risk of its own (the
// kubelet's ExceededGracePeriod) is that risk: not "cannot tell", whose
// headline says no risk was seen in what arrived.
func TestADoubtBesideARiskIsNoCannotTell(t *testing.T) {
	tl := resumedAfterGaps([]string{StreamEndpointSlices}, [][2]int64{{-9000, 0}}, func(r *Recorder) {
		r.feedEvent(at(13), kubeEvent("x", "Warning", "ExceededGracePeriod", "Container runtime did not kill the pod within specified grace period.", at(-7000)), false)
	})
	v := ComputeWith(tl, Options{})
	if !v.Risk || v.CannotTell || !hasFinding(v, "fell in a gap") || !hasFinding(v, "ExceededGracePeriod") {
		t.Errorf("risk %v cannotTell %v: %q", v.Risk, v.CannotTell, v.Findings)
	}
}
