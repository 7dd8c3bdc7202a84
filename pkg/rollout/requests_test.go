package rollout_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/rollouttest"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/probe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

func TestRolloutRequestsOnTheRolloutClock(t *testing.T) {
	r := rollouttest.Rollout(t)
	r.ProbeURL = "http://shop.example.com/"
	// web-1 (no preStop) leaves the ready sets at +115 ms on the rollout's
	// clock; requests fail from +150 to +1100 ms, and one at +50 ms.
	for ms := int64(-500); ms <= 8000; ms += 50 {
		res := probe.Result{Start: timelinetest.At(ms - 100), Latency: 2 * time.Millisecond, Kind: probe.OK, Status: 200}
		if ms == 50 || ms >= 150 && ms <= 1100 {
			res.Kind = probe.Refused
		}
		r.Requests = append(r.Requests, res)
	}
	v := rollout.ComputeWith(r, timeline.Options{})
	rv := v.Requests
	if rv == nil || rv.Failed != 21 || *rv.FirstFailedMs != 50 || *rv.LastFailedMs != 1100 || rv.AfterEndpointOut != 20 || rv.InRaceWindow != 0 {
		t.Fatalf("requests verdict %+v", rv)
	}
	found := false
	for _, f := range v.Findings {
		found = found || f == "21 of 171 requests failed between +50 ms and +1100 ms (connection refused x21): 0 inside a race window the API showed, 20 when or after a pod's endpoint left the traffic, while the data plane converged"
	}
	if !found || !v.Risk {
		t.Errorf("findings %q", v.Findings)
	}
}

// Requests the network gave no answer to before any pod's endpoint left
// the traffic (a route dropped on the way, not the app) are the network's:
// a fact that names them, not a risk held against the rollout.
func TestRolloutNetworkFailuresAreNotTheApps(t *testing.T) {
	r := rollouttest.Rollout(t)
	r.ProbeURL = "http://shop.example.com/"
	// web-1 leaves the ready sets at +115 ms; no answer from -300 to +100 ms.
	for ms := int64(-500); ms <= 8000; ms += 50 {
		res := probe.Result{Start: timelinetest.At(ms - 100), Latency: 2 * time.Millisecond, Kind: probe.OK, Status: 200}
		if ms >= -300 && ms <= 100 {
			res.Kind, res.Latency = probe.NoAnswer, 3*time.Second
		}
		r.Requests = append(r.Requests, res)
	}
	v := rollout.ComputeWith(r, timeline.Options{})
	rv := v.Requests
	if rv == nil || rv.Failed != 9 || rv.Network != 9 {
		t.Fatalf("requests verdict %+v, want 9 failed, all the network's", rv)
	}
	found := false
	for _, f := range v.Findings {
		found = found || strings.HasPrefix(f, "9 of 171 requests to http://shop.example.com/ got no answer: network")
		if strings.Contains(f, "requests failed") {
			t.Errorf("the network's failures held against the rollout: %q", f)
		}
	}
	if !found {
		t.Errorf("no finding names the network's failures: %q", v.Findings)
	}
}
