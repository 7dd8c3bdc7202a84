package timeline_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/internal/probe"
	"github.com/kubectl-graceful/kubectl-graceful/internal/realnode"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// routeDrop is how long TestRealNodeProbeRouteDropped drops the probe's
// packets: inside web-0's 5 s preStop, while the app still runs.
const routeDrop = 3 * time.Second

// TestRealNodeProbeRouteDropped deletes web-0 (two replicas behind
// Service web, a 5 s sleep preStop) under watch --probe, and 300 ms after
// the deletion is seen drops every new connection to the Service's
// address (its SYNs) for 3 s: the test's own nftables table, not the
// machine guard, as a firewall or a lost route would. The probe's requests then get no answer
// from the network. They must be named the network's ("no answer:
// network", apart from refusals and 5xx), and the verdict must not hold
// them against the app: SAFE, exit 0, as without the drop. The truths:
// the test's own drop counter, the times it held the drop, and the app's
// own log (its SIGTERM came after the drop ended: it served throughout).
func TestRealNodeProbeRouteDropped(t *testing.T) {
	env := e2e.Cluster(t)
	env.RealNode(t)
	e2e.RepeatRealFault(t, func(t *testing.T) string {
		ns := env.Namespace(t)
		logs := t.TempDir()
		ip := setUpReal(t, env, ns, twoOf(realPod(realnode.PodOpts{PreStop: sleepHook(5)})), 0, logs)
		url := "http://" + ip + "/"
		defer e2e.GuardUntouched(t)()
		drop := dropTo(t, ip, 80)
		var mu sync.Mutex
		var from, to time.Time
		var dropped int64
		done := make(chan struct{})
		go func() {
			defer close(done)
			if !waitDeleting(t, env, ns, "web-0") {
				return
			}
			time.Sleep(300 * time.Millisecond)
			mu.Lock()
			defer mu.Unlock()
			from = time.Now()
			drop.On(t)
			time.Sleep(routeDrop)
			dropped = drop.Off(t)
			to = time.Now()
		}()
		stdout, stderr, code := kubectl(t, env, watchJSON(ns, "web-0", "--delete", "--probe", url, "--probe-rate", "20", "--probe-timeout", "1s", "--settle", "2s")...)
		<-done
		mu.Lock()
		defer mu.Unlock()
		r := parseRun(t, stdout, stderr, code)
		v := r.summary.Verdict
		t.Logf("exit %d; the drop held %s, %d packets dropped; findings:\n%s", r.code, to.Sub(from).Round(time.Millisecond), dropped, strings.Join(v.Findings, "\n"))
		if from.IsZero() || dropped == 0 {
			t.Fatalf("the drop never dropped a packet (held from %s to %s)", from.Format(time.StampMilli), to.Format(time.StampMilli))
		}
		noAnswer := 0
		if v.Requests != nil {
			for _, k := range v.Requests.Kinds {
				if k.Kind == probe.NoAnswer {
					noAnswer += k.Count
				}
			}
		}
		// At 20 a second, about 60 requests start inside the drop, each
		// a new connection whose SYN (and its retransmissions) is dropped;
		// the dial timeout (1 s) is under the drop's 3 s. The drop is held
		// for as long as it really held (3.6 s once, on a loaded machine),
		// not the 3 s asked. (The drop's counter is read just before its
		// table goes: a SYN may be dropped in between, uncounted.)
		held := max(to.Sub(from), routeDrop)
		if most := int(held.Seconds()*20) + 5; noAnswer == 0 || noAnswer > most {
			t.Errorf("--probe counted %d requests with no answer: network; the drop held %s and dropped %d packets (want 1 to %d)", noAnswer, held.Round(time.Millisecond), dropped, most)
		}
		if v.Requests == nil || v.Requests.Network != noAnswer {
			t.Errorf("the verdict does not set the no-answer requests apart as the network's: %+v", v.Requests)
		}
		if !findingWith(v, "got no answer: network") || !findingWith(v, "not the app's") {
			t.Errorf("no finding names the network's failures:\n%s", strings.Join(v.Findings, "\n"))
		}
		if v.Requests != nil && v.Requests.Failed > v.Requests.Network {
			t.Logf("failures besides the network's: %+v (a real race of this run: the verdict may say RISK for them)", v.Requests.Kinds)
		} else if v.Risk || r.code != 0 || findingWith(v, "requests failed") {
			t.Errorf("the verdict holds the network's failures against the app: risk %v, exit %d:\n%s", v.Risk, r.code, strings.Join(v.Findings, "\n"))
		}
		// The app's own log: it served throughout the drop.
		t0 := deleteSent(t, r)
		if sigterm, ok := sigtermTimes(t, r, filepath.Join(logs, "0"))["app"]; !ok || t0.Add(time.Duration(sigterm)*time.Millisecond).Before(to) {
			t.Errorf("the app's own SIGTERM (%+d ms, logged %v) came before the drop ended (%+d ms): the failures could be the app's", sigterm, ok, to.Sub(t0).Milliseconds())
		}
		return fmt.Sprintf("exit %d, %d packets dropped, --probe no answer: network x%d, %s", r.code, dropped, noAnswer, requestsText(v))
	})
}

// deleteSent is the local time of the delete request of a run.
func deleteSent(t *testing.T, r run) time.Time {
	t.Helper()
	for _, e := range r.events {
		if e.Kind == timeline.KindDeleteSent && e.Ms != nil {
			return e.Local.Add(-time.Duration(*e.Ms) * time.Millisecond)
		}
	}
	t.Fatalf("no DeleteSent event in:\n%s", r.stdout)
	return time.Time{}
}

// requestsText is the probe's count for a run's log line.
func requestsText(v timeline.Verdict) string {
	if v.Requests == nil {
		return "no probe verdict"
	}
	return fmt.Sprintf("failed %d of %d (%s)", v.Requests.Failed, v.Requests.Total, timeline.KindsText(v.Requests.Kinds))
}
