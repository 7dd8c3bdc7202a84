package render_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/rollouttest"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timeline/render"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/nodewatch"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// A watch cut while the race was decided never prints SAFE.
func TestVerdictHeadlineOnAPartialTimeline(t *testing.T) {
	tl := terminate(t, 30, true, 6, []string{"web"}, 7000, 0, nil)
	tl.Gaps = append(tl.Gaps, timeline.Gap{Stream: timeline.StreamEvents, From: timelinetest.At(10), To: timelinetest.At(300)})
	var b bytes.Buffer
	if err := render.WriteVerdict(&b, tl, timeline.ComputeWith(tl, timeline.Options{})); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "CANNOT TELL: a watch was cut or stalled while the race was decided") || strings.Contains(out, "SAFE") {
		t.Errorf("verdict:\n%s", out)
	}
}

// A workload whose only risk is a pod whose race cannot be told (its
// Events watch stalled while the race was decided) says "cannot tell" in
// the rollout's and the drain's tables and headlines, never RISK or safe;
// beside a workload seen at risk, the drain's headline is RISK and the
// unjudged workload's row still says "cannot tell".
func TestTablesSayCannotTellForAPodThatCannotBeJudged(t *testing.T) {
	stalled := terminate(t, 30, true, 6, []string{"api"}, 7000, 0, nil)
	stalled.Gaps = append(stalled.Gaps, timeline.Gap{Stream: timeline.StreamEvents, From: timelinetest.At(10), To: timelinetest.At(300), Stalled: true})
	api := &rollout.Rollout{Workload: rollout.Workload{Kind: "Deployment", Namespace: "shop", Name: "api"}, Services: []string{"api"},
		Pods: []*timeline.Timeline{stalled}, T0: timelinetest.At(0), Start: timelinetest.At(-1000), End: timelinetest.At(8000), Ended: timeline.EndedComplete, Complete: true}
	var b bytes.Buffer
	rv := rollout.ComputeWith(api, timeline.Options{})
	if err := render.WriteRolloutTable(&b, rv, 0); err != nil {
		t.Fatal(err)
	}
	if err := render.WriteRolloutVerdict(&b, api, rv); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !rv.Risk || !strings.Contains(out, "cannot tell") || !strings.Contains(out, "CANNOT TELL: a watch was cut or stalled") || strings.Contains(out, "RISK") || strings.Contains(out, "safe") {
		t.Errorf("rollout, risk %v:\n%s", rv.Risk, out)
	}
	w, v := drainOf(api)
	if got := nodeOutput(t, w, v); !v.Risk || !strings.Contains(got, "CANNOT TELL") || strings.Count(got, "cannot tell") != 2 || strings.Contains(got, "RISK") || strings.Contains(got, "safe") {
		t.Errorf("drain of api alone, risk %v:\n%s", v.Risk, got)
	}
	naive := rollouttest.Rollout(t)
	w.Workloads = append(w.Workloads, naive)
	v = nodewatch.ComputeWith(w, timeline.Options{})
	got := nodeOutput(t, w, v)
	if !strings.Contains(got, "RISK: requests can fail during this drain") || !strings.Contains(got, "workloads at risk: shop/Deployment/web") ||
		!strings.Contains(got, "cannot tell for workload(s) shop/Deployment/api: the "+string(timeline.StreamEvents)+" watch(es) were cut or stalled") {
		t.Errorf("drain of api and web:\n%s", got)
	}
	for _, l := range strings.Split(got, "\n") {
		if strings.Contains(l, "Deployment/api ") && !strings.HasSuffix(strings.TrimRight(l, "│ "), "cannot tell") {
			t.Errorf("api's row %q, want it to end in cannot tell", l)
		}
	}
}

// nodeOutput is the drain watch's table and verdict for w.
func nodeOutput(t *testing.T, w *nodewatch.Watch, v nodewatch.Verdict) string {
	t.Helper()
	var b bytes.Buffer
	if err := render.WriteNodeTable(&b, v, 0); err != nil {
		t.Fatal(err)
	}
	if err := render.WriteNodeVerdict(&b, w, v); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
