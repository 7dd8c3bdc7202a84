package render_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/rollouttest"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timeline/render"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

func TestRolloutRenderers(t *testing.T) {
	r := rollouttest.Rollout(t)
	v := rollout.ComputeWith(r, timeline.Options{})
	var b bytes.Buffer
	if err := render.WriteRolloutTable(&b, v, 0); err != nil {
		t.Fatal(err)
	}
	if err := render.WriteRolloutChart(&b, r, v); err != nil {
		t.Fatal(err)
	}
	if err := render.WriteRolloutVerdict(&b, r, v); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"TOO SHORT", "safe", "Killing at +20 ms + preStop 5s", "ready web", "RISK: requests can fail during this rollout"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	var rows []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "web-1 ") || strings.HasPrefix(l, "web-2 ") {
			rows = append(rows, l)
		}
	}
	if len(rows) != 2 || !strings.Contains(rows[0], "X") || !strings.Contains(rows[1], "~") || !strings.Contains(rows[1], "T") {
		t.Errorf("chart rows %q, want one per pod with deletion, preStop and SIGTERM", rows)
	}
	b.Reset()
	if err := render.WriteRolloutMermaid(&b, r, v); err != nil {
		t.Fatal(err)
	}
	if strings.Count(b.String(), "    section ") != 2 || !strings.Contains(b.String(), "section web-1") ||
		!strings.Contains(b.String(), "    title Rollout of "+r.Workload.String()+" in ") {
		t.Errorf("mermaid:\n%s", b.String())
	}
}

func TestWorkloadJSONLines(t *testing.T) {
	r := rollouttest.Rollout(t)
	var b bytes.Buffer
	p := render.RolloutJSONPrinter(&b)
	p.PodEvent(r, r.Pods[1], r.Pods[1].Events[0])
	p.Capacity(r, "web", r.Capacity[0].Samples[1])
	p.Status(r, rollout.StatusChange{Recv: timelinetest.At(0), Message: "restart sent"})
	_ = render.WriteWorkloadJSONSummary(&b, r, rollout.ComputeWith(r, timeline.Options{}))
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	var first, capacity map[string]any
	var summary render.WorkloadJSONSummary
	for i, dst := range []any{&first, &capacity, nil, &summary} {
		if dst == nil {
			continue
		}
		if err := json.Unmarshal([]byte(lines[i]), dst); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
	}
	if first["pod"] != "web-1" || first["type"] != "event" || capacity["capacity"].(map[string]any)["ready"].(float64) != 3 {
		t.Errorf("lines %v / %v", first, capacity)
	}
	if summary.Type != "summary" || summary.Verdict.Raced != 0 || summary.Verdict.WindowTooShort != 1 || len(summary.Verdict.Pods) != 2 || summary.Verdict.Capacity[0].MinReady != 2 {
		t.Errorf("summary %+v", summary)
	}
}

// A rollout interrupted before it started is headlined as not seen.
func TestRolloutVerdictNothingStarted(t *testing.T) {
	r := &rollout.Rollout{Workload: rollout.Workload{Kind: "Deployment", Name: "web"}, Start: timelinetest.At(0), End: timelinetest.At(5000), Ended: "interrupted"}
	var b bytes.Buffer
	_ = render.WriteRolloutVerdict(&b, r, rollout.ComputeWith(r, timeline.Options{}))
	if !strings.Contains(b.String(), "NO ROLLOUT SEEN") {
		t.Errorf("headline:\n%s", b.String())
	}
}

// A pod's ServiceEndpoints event carries othersReady in `watch TYPE/NAME
// -o json` as in `watch pod -o json`: the same count of the Service's
// other pods' ready endpoints, 0 written, not dropped.
func TestWorkloadJSONOthersReady(t *testing.T) {
	r := rollouttest.Rollout(t)
	tl := r.Pods[1]
	for _, n := range []int{0, 2} {
		e := timeline.Event{Recv: timelinetest.At(30), Track: timeline.ControlPlane, Kind: timeline.KindServiceEndpoints,
			Service: "web", OthersReady: &n, Message: "Service web: ready endpoints of other pods"}
		var pod, workload bytes.Buffer
		if err := render.WriteJSONEvent(&pod, tl, e); err != nil {
			t.Fatal(err)
		}
		render.RolloutJSONPrinter(&workload).PodEvent(r, tl, e)
		var fromPod, fromWorkload map[string]any
		if err := json.Unmarshal(pod.Bytes(), &fromPod); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(workload.Bytes(), &fromWorkload); err != nil {
			t.Fatal(err)
		}
		got, ok := fromWorkload["othersReady"].(float64)
		if !ok || int(got) != n || fromWorkload["othersReady"] != fromPod["othersReady"] || fromWorkload["service"] != "web" {
			t.Errorf("othersReady %d: watch TYPE/NAME -o json wrote %s; watch pod -o json wrote %s", n, workload.String(), pod.String())
		}
	}
}
