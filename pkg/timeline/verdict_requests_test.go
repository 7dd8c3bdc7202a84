package timeline

import (
	"testing"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/probe"
)

// probed adds one request every 50 ms from fromMs to toMs to tl, failing
// with fail(ms) ("" for ok), each taking latency.
func probed(tl *Timeline, fromMs, toMs int64, latency time.Duration, fail func(ms int64) string) {
	tl.ProbeURL = "http://shop.example.com/"
	for ms := fromMs; ms <= toMs; ms += 50 {
		r := probe.Result{Start: at(ms), Latency: latency, Kind: probe.OK, Status: 200}
		switch k := fail(ms); k {
		case "":
		case "502":
			r.Kind, r.Status = probe.Status, 502
		default:
			r.Kind = probe.Kind(k)
		}
		tl.Requests = append(tl.Requests, r)
	}
}

func TestRequestsVerdictCountsFailuresAndPlacesThem(t *testing.T) {
	// No preStop: SIGTERM at Killing (+20 ms), the endpoint leaves the
	// ready set at +15 ms; the data plane kept routing until +1000 ms.
	tl := terminate(t, 30, false, 0, []string{"web"}, 400, 0, nil)
	probed(tl, -500, 3000, 3*time.Millisecond, func(ms int64) string {
		switch {
		case ms >= 50 && ms < 400:
			return "502"
		case ms >= 400 && ms <= 1000:
			return string(probe.Refused)
		}
		return ""
	})
	v := ComputeWith(tl, Options{Propagation: time.Second})
	rv := v.Requests
	if rv == nil || !v.Risk {
		t.Fatalf("requests verdict %+v, risk %v", rv, v.Risk)
	}
	if rv.Total != 71 || rv.Failed != 20 || *rv.FirstFailedMs != 50 || *rv.LastFailedMs != 1000 {
		t.Errorf("got %d of %d failed from %d to %d", rv.Failed, rv.Total, *rv.FirstFailedMs, *rv.LastFailedMs)
	}
	if rv.AfterEndpointOut != 20 || rv.InRaceWindow != 0 {
		t.Errorf("in window %d, after endpoint out %d", rv.InRaceWindow, rv.AfterEndpointOut)
	}
	for _, want := range []string{
		"20 of 71 requests failed between +50 ms and +1000 ms (connection refused x13, 502 x7)",
		"the API showed no race window, yet 20 failed after the endpoint left the traffic at +15 ms",
		"the preStop delay (0 ms) is shorter than the propagation the data plane took (at least 985 ms)",
		"request latency p50/p99: 3.0/3.0 ms before the delete request, 3.0/3.0 ms during the termination",
	} {
		if !hasFinding(v, want) {
			t.Errorf("no finding %q in %q", want, v.Findings)
		}
	}
}

func TestRequestsVerdictInsideRaceWindow(t *testing.T) {
	// SIGTERM at +20 ms, the endpoint leaves its ready set only at +300 ms.
	tl := terminate(t, 30, false, 0, nil, 2000, 0, func(r *Recorder) {})
	tl.Services = []string{"web"}
	v0 := ComputeWith(tl, Options{})
	v0.EndpointOutMs = new(int64(300))
	v0.WindowMs = new(*v0.StopMs - 300)
	probed(tl, 0, 500, time.Millisecond, func(ms int64) string {
		if ms >= 100 && ms <= 300 {
			return string(probe.Reset)
		}
		return ""
	})
	rv := requestsVerdict(tl, sortedEvents(tl), &v0)
	if rv.Failed != 5 || rv.InRaceWindow != 5 || rv.AfterEndpointOut != 0 {
		t.Errorf("got %d failed, %d in the race window, %d after", rv.Failed, rv.InRaceWindow, rv.AfterEndpointOut)
	}
}

func TestRequestsVerdictNoFailuresIsNoRisk(t *testing.T) {
	tl := terminate(t, 30, true, 6, []string{"web"}, 6500, 0, nil)
	probed(tl, -300, 7000, 2*time.Millisecond, func(int64) string { return "" })
	v := ComputeWith(tl, Options{})
	if v.Risk || v.Requests.Failed != 0 || !hasFinding(v, "0 of 147 requests to http://shop.example.com/ failed") {
		t.Errorf("risk %v, findings %q", v.Risk, v.Findings)
	}
	without := terminate(t, 30, true, 6, []string{"web"}, 6500, 0, nil)
	if ComputeWith(without, Options{}).Requests != nil {
		t.Error("a requests verdict without a probe")
	}
}

func TestPercentiles(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 100; i++ {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	p50, p99 := percentiles(ds)
	if *p50 != 0.05 || *p99 != 0.099 {
		t.Errorf("p50 %v p99 %v", *p50, *p99)
	}
	if a, b := percentiles(nil); a != nil || b != nil {
		t.Error("percentiles of nothing")
	}
}

type requestLines struct{ lines []RequestLine }

func (p *requestLines) Event(*Timeline, Event)              {}
func (p *requestLines) Gap(*Timeline, Gap)                  {}
func (p *requestLines) Note(*Timeline, string)              {}
func (p *requestLines) Requests(_ *Timeline, l RequestLine) { p.lines = append(p.lines, l) }

func TestRequestLinesOnlyOnFailuresOrChange(t *testing.T) {
	p := &requestLines{}
	f := &follower{cfg: Config{Printer: Printer{Requests: p.Requests}}, rec: NewRecorder(testPod(30, nil), nil, at(0))}
	ok := probe.Result{Kind: probe.OK, Status: 200}
	bad := probe.Result{Kind: probe.Status, Status: 503}
	for i, rs := range [][]probe.Result{{ok, ok}, {ok, ok}, {ok, bad}, {bad, bad}, {ok}, {ok}} {
		f.requests(probe.Bucket{From: at(int64(i) * 100), Results: rs})
	}
	if len(f.rec.TL.Requests) != 10 {
		t.Errorf("%d requests recorded, want 10", len(f.rec.TL.Requests))
	}
	var got []int64
	for _, l := range p.lines {
		got = append(got, l.From.Sub(base).Milliseconds())
	}
	// the first bucket, both buckets with failures, the first ok again.
	if len(got) != 4 || got[0] != 0 || got[1] != 200 || got[2] != 300 || got[3] != 400 {
		t.Errorf("lines at %v", got)
	}
	if p.lines[1].OK != 1 || p.lines[1].Failed != 1 || KindsText(p.lines[1].Kinds) != "503 x1" {
		t.Errorf("line %+v", p.lines[1])
	}
}

// Requests the network gave no answer to while the pod was still routed
// and not yet told to stop (a route dropped on the way) are the network's:
// named so, never a risk of the app; the same failures once the pod was
// stopped and its endpoint out are kube-proxy's stale rules to its
// address, held against the termination as before.
func TestNoAnswerBeforeTheStopIsTheNetworks(t *testing.T) {
	quiet := terminate(t, 30, true, 5, []string{"web"}, 5200, 0, nil)
	base := ComputeWith(quiet, Options{})
	tl := terminate(t, 30, true, 5, []string{"web"}, 5200, 0, nil)
	probed(tl, -1000, 6000, 2*time.Millisecond, func(ms int64) string {
		if ms >= 300 && ms < 3300 {
			return string(probe.NoAnswer)
		}
		return ""
	})
	v := ComputeWith(tl, Options{})
	rv := v.Requests
	if rv == nil || rv.Failed != 60 || rv.Network != 60 || rv.AfterEndpointOut != 0 || rv.InRaceWindow != 0 {
		t.Fatalf("requests verdict %+v", rv)
	}
	if v.Risk != base.Risk || hasFinding(v, "requests failed") {
		t.Errorf("risk %v (without the probe %v), findings %q", v.Risk, base.Risk, v.Findings)
	}
	if !hasFinding(v, "60 of 141 requests to http://shop.example.com/ got no answer: network") || !hasFinding(v, "not the app's") {
		t.Errorf("no finding names the network: %q", v.Findings)
	}

	late := terminate(t, 30, true, 5, []string{"web"}, 5200, 0, nil)
	probed(late, -1000, 6000, 2*time.Millisecond, func(ms int64) string {
		if ms >= 5300 && ms < 5800 {
			return string(probe.NoAnswer)
		}
		return ""
	})
	lv := ComputeWith(late, Options{})
	if lv.Requests.Network != 0 || lv.Requests.AfterEndpointOut != 10 || !lv.Risk || !hasFinding(lv, "10 got no answer at all") {
		t.Errorf("no answer after the stop: %+v, risk %v, findings %q", lv.Requests, lv.Risk, lv.Findings)
	}
}
