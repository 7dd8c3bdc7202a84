package render_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/timeline/render"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/probe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// probedTermination is a termination without preStop whose requests fail
// with 502 from +100 ms to +900 ms.
func probedTermination(t *testing.T) (*timeline.Timeline, timeline.Verdict) {
	tl := terminate(t, 30, false, 0, []string{"web"}, 2000, 0, nil)
	tl.ProbeURL = "http://shop.example.com/"
	for ms := int64(-200); ms <= 2000; ms += 50 {
		r := probe.Result{Start: timelinetest.At(ms), Latency: time.Millisecond, Kind: probe.OK, Status: 200}
		if ms >= 100 && ms <= 900 {
			r.Kind, r.Status = probe.Status, 502
		}
		tl.Requests = append(tl.Requests, r)
	}
	return tl, timeline.ComputeWith(tl, timeline.Options{})
}

func TestRequestsTrackInChartVerdictAndMermaid(t *testing.T) {
	tl, v := probedTermination(t)
	var b bytes.Buffer
	if err := render.WriteChart(&b, tl, v); err != nil {
		t.Fatal(err)
	}
	chart := b.String()
	var lane string
	for _, l := range strings.Split(chart, "\n") {
		if strings.HasPrefix(l, "requests ") {
			lane = l[15:]
		}
	}
	// 2020 ms over 64 columns: failures from column 3 to 28, ok around them.
	if !strings.HasPrefix(lane, "...x") || !strings.Contains(lane, "x.") || strings.Count(lane, "x") < 20 {
		t.Errorf("requests lane %q in\n%s", lane, chart)
	}
	b.Reset()
	_ = render.WriteVerdict(&b, tl, v)
	if !strings.Contains(b.String(), "RISK: 17 of 45 requests failed while this pod terminated") ||
		!strings.Contains(b.String(), "17 of 45 requests failed between +100 ms and +900 ms (502 x17)") {
		t.Errorf("verdict:\n%s", b.String())
	}
	b.Reset()
	_ = render.WriteMermaid(&b, tl, v)
	if !strings.Contains(b.String(), "section requests\n    17 of 45 requests failed (502 x17) :crit, 100, 800ms") {
		t.Errorf("mermaid:\n%s", b.String())
	}
}

func TestRequestsLinesAndJSON(t *testing.T) {
	tl, v := probedTermination(t)
	l := timeline.RequestLine{From: timelinetest.At(100), OK: 1, Failed: 2, Kinds: []timeline.LabelCount{{Kind: probe.Status, Status: 502, Count: 1}, {Kind: "reset\x1b[2J", Count: 1}}}
	var b bytes.Buffer
	render.LinePrinter{W: &b}.Requests(tl, l)
	if got := b.String(); !strings.Contains(got, "+100 ms  requests       1 ok, 2 failed (502 x1, reset\\x1b[2J x1)") {
		t.Errorf("line %q", got)
	}
	b.Reset()
	render.JSONPrinter{W: &b}.Requests(tl, timeline.RequestLine{From: timelinetest.At(100), OK: 3})
	var j render.JSONRequests
	if err := json.Unmarshal(b.Bytes(), &j); err != nil || j.Type != "requests" || *j.Ms != 100 || j.OK != 3 || j.Kinds == nil {
		t.Errorf("json %s: %v", b.String(), err)
	}
	b.Reset()
	_ = render.WriteJSONSummary(&b, tl, v)
	var s struct {
		Verdict struct {
			Risk     bool
			Requests timeline.RequestsVerdict
		}
	}
	if err := json.Unmarshal(b.Bytes(), &s); err != nil || !s.Verdict.Risk || s.Verdict.Requests.Failed != 17 || s.Verdict.Requests.Kinds[0].Status != 502 {
		t.Errorf("summary %s: %v", b.String(), err)
	}
}
