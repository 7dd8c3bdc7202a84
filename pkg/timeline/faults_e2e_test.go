package timeline_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// watchUnderFault runs `watch pod web-0 --delete` (preStop 5 s, another
// ready endpoint behind the Service), hits the API server with fault once
// the deletion is seen, and checks what a user would: the run ends (exit
// 0 or 2 with a verdict, or 1 with none), every gap or stall is marked on
// the timeline and named by the verdict, the verdict never calls the
// endpoint absent from the EndpointSlices the timeline shows it in, and
// when cut is set (the watches were certainly broken) at least one gap is
// marked.
func watchUnderFault(t *testing.T, fe *e2e.FaultEnv, cut bool, fault func()) string {
	ns, node := fe.Namespace(t), fe.Node(t)
	createServedPods(t, fe.Env, ns, node, podOpts{grace: 30, preStop: 5})
	l := startLive(t, fe.Kubeconfig, watchJSON(ns, "web-0", "--delete")...)
	l.waitFor(`"kind":"deletion-seen"`, time.Minute)
	fault()
	r := l.wait()
	cuts, stalls := 0, 0
	for _, g := range r.summary.Gaps {
		if g.Stalled {
			stalls++
		} else {
			cuts++
		}
	}
	gapLines := 0
	for _, e := range r.events {
		if e.Type == "gap" {
			gapLines++
		}
	}
	v := r.summary.Verdict
	switch r.code {
	case 0, 2:
		if cut && (cuts == 0 || gapLines == 0) {
			t.Errorf("exit %d with a verdict, the watches were cut, but no gap marked (%d gap lines): %v", r.code, gapLines, v.Findings)
		}
		if cuts > 0 && !findingWith(v, "(gaps marked above)") || stalls > 0 && !findingWith(v, "the watch stalled") {
			t.Errorf("%d cut(s) and %d stall(s) marked, the verdict does not say so: %v", cuts, stalls, v.Findings)
		}
	case 1:
		if r.summary.Type == "summary" && len(v.Findings) > 0 {
			t.Errorf("exit 1, yet a verdict: %v", v.Findings)
		}
	default:
		t.Errorf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if findingWith(v, "not in any EndpointSlice") && r.has(timeline.KindEndpointAdded) {
		t.Errorf("the verdict says the endpoint was in no EndpointSlice, the timeline shows it in one: %v", v.Findings)
	}
	if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "E1") || strings.Contains(r.stderr, "W1") {
		t.Errorf("raw library logging or a stack trace on stderr:\n%s", r.stderr)
	}
	if t.Failed() {
		t.Logf("stdout:\n%s", r.stdout)
	}
	return fmt.Sprintf("exit %d, %d cut(s), %d stall(s) marked, stderr %q, verdict: %s",
		r.code, cuts, stalls, strings.TrimSpace(r.stderr), strings.Join(v.Findings, "; "))
}

// The API server frozen 15 s while `watch pod --delete` follows the
// termination: the watches stay connected; nothing changes on the server
// meanwhile (kwok, the simulated kubelet, writes through it too), so the
// run sees the termination resume 15 s later, and any stall it sees is
// marked and named.
func TestWatchPodAPIServerPaused(t *testing.T) {
	t.Parallel()
	e2e.RepeatFault(t, func(t *testing.T, fe *e2e.FaultEnv) string {
		return watchUnderFault(t, fe, false, func() { fe.PauseAPIServer(15 * time.Second) })
	})
}

// The API server killed and started again 5 s later while `watch pod
// --delete` follows the termination: the watches are cut, the gap is
// marked and the verdict says so.
func TestWatchPodAPIServerRestarted(t *testing.T) {
	t.Parallel()
	e2e.RepeatFault(t, func(t *testing.T, fe *e2e.FaultEnv) string {
		var down time.Duration
		out := watchUnderFault(t, fe, true, func() { down = fe.APIServerDown(5*time.Second, nil) })
		return fmt.Sprintf("API unavailable %s; %s", down.Round(100*time.Millisecond), out)
	})
}
