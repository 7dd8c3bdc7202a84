package timeline_test

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/dataplane"
	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// startDataPlane starts the simulated data plane for Service web of ns.
func startDataPlane(t *testing.T, env *e2e.Env, ns string, propagation time.Duration) *dataplane.DataPlane {
	t.Helper()
	d, err := dataplane.Start(context.Background(), dataplane.Config{Client: env.Client, Namespace: ns, Service: "web", Propagation: propagation})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	t.Log(d.Describe())
	return d
}

// probeRun deletes web-0 under --probe through the simulated data plane.
func probeRun(t *testing.T, env *e2e.Env, ns string, d *dataplane.DataPlane, propagation time.Duration) run {
	t.Helper()
	stdout, stderr, code := kubectl(t, env, watchJSON(ns, "web-0", "--delete", "--probe", d.URL, "--probe-rate", "50", "--propagation", propagation.String())...)
	return parseRun(t, stdout, stderr, code)
}

// Real requests through the simulated data plane (a load balancer that
// follows the EndpointSlices a propagation delay late, backends that stop
// accepting at the simulated SIGTERM), each run through the real kubectl.
func TestWatchProbeE2E(t *testing.T) {
	env := e2e.Cluster(t)

	t.Run("naive pod: requests fail right after the endpoint leaves, exit 2", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		createServedPods(t, env, ns, node, podOpts{grace: 30})
		d := startDataPlane(t, env, ns, time.Second)
		r := probeRun(t, env, ns, d, time.Second)
		v := r.summary.Verdict
		rv := v.Requests
		if r.code != 2 || rv == nil || rv.Failed == 0 {
			t.Fatalf("exit %d, requests %+v; stderr: %s", r.code, rv, r.stderr)
		}
		if v.EndpointOutMs == nil || v.StopMs == nil {
			t.Fatalf("no endpoint out or stop: %+v", v)
		}
		// The backend refuses from SIGTERM on; the balancer stops sending
		// to it 1 s after the endpoint left: every failure is in between
		// (slack for a loaded machine).
		from := min(*v.StopMs, *v.EndpointOutMs) - 150
		to := *v.EndpointOutMs + 1000 + 700
		if *rv.FirstFailedMs < from || *rv.LastFailedMs > to {
			t.Errorf("failures from %+d to %+d ms, want within %+d..%+d ms", *rv.FirstFailedMs, *rv.LastFailedMs, from, to)
		}
		if !findingWith(v, "requests failed between") || !strings.Contains(r.stderr, "probing "+d.URL) {
			t.Errorf("findings %q; stderr %s", v.Findings, r.stderr)
		}
		if rv.Kinds[0].Status != 502 {
			t.Errorf("failure kinds %v, want 502 from the balancer", rv.Kinds)
		}
		linesInTimeOrder(t, r.stdout)
	})

	t.Run("hardened pod: preStop longer than the propagation, zero failures, exit 0", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		createServedPods(t, env, ns, node, podOpts{grace: 30, preStop: 3})
		d := startDataPlane(t, env, ns, time.Second)
		r := probeRun(t, env, ns, d, time.Second)
		rv := r.summary.Verdict.Requests
		if r.code != 0 || rv == nil || rv.Failed != 0 || rv.Total < 50 {
			t.Fatalf("exit %d, requests %+v, findings %q; stderr: %s", r.code, rv, r.summary.Verdict.Findings, r.stderr)
		}
		if rv.BeforeP50Seconds == nil || rv.DuringP99Seconds == nil || !findingWith(r.summary.Verdict, "request latency p50/p99") {
			t.Errorf("latency missing: %+v", rv)
		}
	})

	t.Run("preStop 0.5 s under a 2 s propagation: failures, the verdict says why", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		// exec `sleep 0.5`, which pkg/prestop and the Stages alike round
		// up to whole seconds (1 s).
		o := podOpts{grace: 30, preStop: 1, execSleep: true, sleepArg: "0.5"}
		createServedPods(t, env, ns, node, o)
		d := startDataPlane(t, env, ns, 2*time.Second)
		r := probeRun(t, env, ns, d, 2*time.Second)
		v := r.summary.Verdict
		if r.code != 2 || v.Requests == nil || v.Requests.Failed == 0 {
			t.Fatalf("exit %d, requests %+v; stderr: %s", r.code, v.Requests, r.stderr)
		}
		if !findingWith(v, "is shorter than the propagation") {
			t.Errorf("findings %q", v.Findings)
		}
	})

	t.Run("unreachable probe URL: one line, exit 1, nothing deleted", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		createServedPods(t, env, ns, node, podOpts{grace: 30})
		stdout, stderr, code := kubectl(t, env, watchJSON(ns, "web-0", "--delete", "--probe", "http://127.0.0.1:9/")...)
		if code != 1 || stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "nothing was deleted") {
			t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
		pod, err := env.Client.CoreV1().Pods(ns).Get(context.Background(), "web-0", metav1.GetOptions{})
		if err != nil || pod.DeletionTimestamp != nil {
			t.Errorf("the pod was touched: %v %v", err, pod.DeletionTimestamp)
		}
	})
}

// A rollout restart under --probe through the simulated data plane: the
// naive Deployment's requests fail, the hardened one's do not.
func TestWatchRolloutProbeE2E(t *testing.T) {
	env := e2e.Cluster(t)
	for _, c := range []struct {
		name    string
		preStop int64
	}{{"naive", 0}, {"hardened", 3}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ns, node := env.Namespace(t), env.Node(t)
			pods := createDeployment(t, env, ns, node, "web", 2, podOpts{grace: 30, preStop: c.preStop})
			createService(t, env, ns, "web", nil, &pods[0])
			d := startDataPlane(t, env, ns, time.Second)
			w := runWorkload(t, env.Kubeconfig, "watch", "deployment/web", "-n", ns, "--restart", "-o", "json",
				"--settle", "1s", "--timeout", "120s", "--probe", d.URL, "--probe-rate", "50")
			rv := w.verdict().Requests
			if rv == nil || rv.Total < 50 {
				t.Fatalf("exit %d, requests %+v; stderr %s", w.code, rv, w.stderr)
			}
			// The first failure comes no sooner than the first pod's SIGTERM
			// or endpoint removal, give or take the two watches' delivery
			// (the data plane's and the plugin's).
			first := int64(1 << 40)
			for _, p := range w.verdict().Pods {
				if p.Verdict.StopMs != nil && p.Verdict.EndpointOutMs != nil {
					first = min(first, p.DeletedMs+min(*p.Verdict.StopMs, *p.Verdict.EndpointOutMs))
				}
			}
			switch {
			case c.preStop == 0 && (w.code != 2 || rv.Failed == 0 || *rv.FirstFailedMs < first-150 || *rv.LastFailedMs > first+5000):
				t.Errorf("naive: exit %d, requests %+v, findings %q", w.code, rv, w.verdict().Findings)
			case c.preStop > 0 && rv.Failed != 0:
				t.Errorf("hardened: requests %+v, findings %q", rv, w.verdict().Findings)
			}
		})
	}
}

// linesInTimeOrder checks that the live lines of -o json, requests lines
// among them, come in the order of their times.
func linesInTimeOrder(t *testing.T, stdout string) {
	t.Helper()
	last, lastLine := int64(math.MinInt64), ""
	for _, line := range strings.Split(stdout, "\n") {
		var l struct {
			Ms *int64 `json:"ms"`
		}
		if json.Unmarshal([]byte(line), &l) != nil || l.Ms == nil {
			continue
		}
		if *l.Ms < last {
			t.Errorf("line at %+d ms printed after one at %+d ms:\n  %s\n  %s", *l.Ms, last, lastLine, line)
		}
		last, lastLine = *l.Ms, line
	}
}
