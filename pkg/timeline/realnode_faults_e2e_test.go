package timeline_test

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	probepkg "github.com/kubectl-graceful/kubectl-graceful/internal/probe"
	"github.com/kubectl-graceful/kubectl-graceful/internal/realnode"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// kubeletPause is how long TestRealNodeKubeletPaused keeps the kubelet
// stopped: longer than the 5 s preStop it stops in, shorter than the
// node-monitor grace period (the node stays Ready).
const kubeletPause = 7 * time.Second

// TestRealNodeKubeletPaused stops the real kubelet (SIGSTOP) just after
// the delete, inside a 5 s sleep preStop, for 7 s: the kubelet's timer
// ends the hook only when it runs again, so SIGTERM comes about 2 s later
// than the spec says. The watch must not bound SIGTERM where the app's own
// log contradicts it, must say that the exit came late, and its verdict
// must agree with the requests that failed.
func TestRealNodeKubeletPaused(t *testing.T) {
	kubeletFault(t, func(t *testing.T, node string) {
		time.Sleep(300 * time.Millisecond) // Killing written, the hook's timer started
		if err := realnode.Signal(node, realnode.PartKubelet, syscall.SIGSTOP); err != nil {
			t.Errorf("stopping the kubelet: %v", err)
			return
		}
		time.Sleep(kubeletPause)
		if err := realnode.Signal(node, realnode.PartKubelet, syscall.SIGCONT); err != nil {
			t.Errorf("resuming the kubelet: %v", err)
		}
	}, func(t *testing.T, r run, sigterm map[string]int64) {
		v := r.summary.Verdict
		bounded(t, "SIGTERM (Killing + sleep 5, the kubelet stopped 7 s)", v, sigterm["app"])
		if real := sigterm["app"]; real > 5000+kubeletPause.Milliseconds()/2 && !findingWith(v, "SIGTERM uncertain by") {
			t.Errorf("SIGTERM came at %+d ms, well after the preStop's 5 s, and no finding names the kubelet's delay:\n%s", real, strings.Join(v.Findings, "\n"))
		}
	})
}

// kubeletFault runs a fault of real-node-0's kubelet FaultRuns times: pods
// web-0 and web-1 with a 5 s sleep preStop, web-0 deleted under watch;
// fault runs once the deletion is seen, beside the watch (it must not call
// t.Fatal), and the kubelet is put back and the node Ready after each run.
func kubeletFault(t *testing.T, fault func(t *testing.T, node string), check func(t *testing.T, r run, sigterm map[string]int64)) {
	env := e2e.Cluster(t)
	// Alone on the real nodes: every other real-node test needs the kubelet.
	node := env.RealNodes(t)[0]
	e2e.RepeatRealFault(t, func(t *testing.T) string {
		t.Cleanup(func() { env.RestoreRealNodePart(t, node, realnode.PartKubelet) })
		sc := realScenario{name: t.Name(), pods: twoOf(realPod(realnode.PodOpts{PreStop: sleepHook(5)})), check: check,
			during: func(t *testing.T, ns string) {
				if waitDeleting(t, env, ns, "web-0") {
					fault(t, node)
				}
			}}
		r := runRealScenario(t, env, sc)
		return fmt.Sprintf("exit %d, SIGTERM bounds %s", r.code, boundsText(r))
	})
}

// boundsText is the verdict's SIGTERM bounds for a run's log line.
func boundsText(r run) string {
	v := r.summary.Verdict
	if v.SigtermEarliestMs == nil || v.SigtermLatestMs == nil {
		return "none"
	}
	return fmt.Sprintf("%+d..%+d ms", *v.SigtermEarliestMs, *v.SigtermLatestMs)
}

// waitDeleting waits until pod has a deletionTimestamp, reporting an error
// (not fatal: it runs beside the watch) when it does not within 30 s.
func waitDeleting(t *testing.T, env *e2e.Env, ns, pod string) bool {
	err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		p, err := env.Client.CoreV1().Pods(ns).Get(ctx, pod, metav1.GetOptions{})
		return err == nil && p.DeletionTimestamp != nil, nil
	})
	if err != nil {
		t.Errorf("pod %s was never deleted: %v", pod, err)
		return false
	}
	return true
}

// TestRealNodeKubeletRestarted kills the real kubelet 1 s into a 5 s sleep
// preStop and starts it again 2 s later, as a crash and its supervisor
// would: the new kubelet finds the pod terminating and stops it again,
// preStop included. The pod must still end, the watch must follow it to
// the end, no SIGTERM bound may contradict the app's own log, and the
// verdict must agree with the requests that failed.
func TestRealNodeKubeletRestarted(t *testing.T) {
	kubeletFault(t, func(t *testing.T, node string) {
		time.Sleep(time.Second)
		if err := realnode.Restart(node, realnode.PartKubelet, 2*time.Second); err != nil {
			t.Errorf("restarting the kubelet: %v", err)
		}
	}, func(t *testing.T, r run, sigterm map[string]int64) {
		v := r.summary.Verdict
		bounded(t, "SIGTERM (Killing + sleep 5, the kubelet restarted)", v, sigterm["app"])
		if real, ok := sigterm["app"]; !ok || (real > 6000 && !strings.Contains(v.SigtermBasisText, "Killing again") && !findingWith(v, "SIGTERM uncertain by")) {
			t.Errorf("the app's own SIGTERM at %+d ms (logged: %v), yet neither the estimate (%s) nor a finding says the kubelet began again:\n%s", real, ok, v.SigtermBasisText, strings.Join(v.Findings, "\n"))
		}
		gone := false
		for _, e := range r.events {
			gone = gone || e.Kind == timeline.KindPodGone
		}
		if !gone {
			t.Errorf("the watch did not follow the pod until it was gone:\n%s", r.stdout)
		}
	})
}

// TestRealNodeLastEndpointLeaves deletes the only replica behind Service
// web under watch with --probe: from the moment it stops serving the
// Service has nothing to send to; kube-proxy refuses new connections, and
// until its next sync its rules still send some to the pod's address,
// where they hang. The verdict must say traffic had nowhere to go, and
// count the failures with their kinds as the test's own loop saw them
// over the same time: a kind the loop saw at least twice is in the probe's
// count too.
func TestRealNodeLastEndpointLeaves(t *testing.T) {
	env := e2e.Cluster(t)
	env.RealNode(t)
	e2e.RepeatRealFault(t, func(t *testing.T) string {
		sc := realScenario{name: t.Name(), pods: []corev1.PodSpec{realPod(realnode.PodOpts{})},
			check: func(t *testing.T, r run, _ map[string]int64) {
				v := r.summary.Verdict
				if !findingWith(v, "traffic had nowhere to go") {
					t.Errorf("the last endpoint left and no finding says traffic had nowhere to go:\n%s", strings.Join(v.Findings, "\n"))
				}
				own := ownKinds(t, r)
				probe := map[string]int{}
				if v.Requests != nil {
					for _, k := range v.Requests.Kinds {
						// The loop's own client cannot tell a connection
						// never set up from an answer that never came.
						kind := string(k.Kind)
						if k.Kind == probepkg.NoAnswer {
							kind = "timeout"
						}
						probe[kind] += k.Count
					}
				}
				t.Logf("failures while the watch ran: the test's own loop %v, --probe %v", own, probe)
				for kind, n := range own {
					if n >= 2 && probe[kind] == 0 {
						t.Errorf("the test's own loop saw %d %s failures while the watch ran, --probe counted none: %v", n, kind, probe)
					}
				}
			}}
		r := runRealScenario(t, env, sc)
		kinds := "none"
		if v := r.summary.Verdict; v.Requests != nil {
			kinds = fmt.Sprint(v.Requests.Kinds)
		}
		return fmt.Sprintf("exit %d, --probe failures %s", r.code, kinds)
	})
}

// ownKinds counts the test's own failed requests that started between the
// delete request and the watch's last event, by the probe's kinds
// (connection-refused, timeout, reset, other).
func ownKinds(t *testing.T, r run) map[string]int {
	t.Helper()
	var t0, end time.Time
	for _, e := range r.events {
		if e.Kind == timeline.KindDeleteSent && e.Ms != nil {
			t0 = e.Local.Add(-time.Duration(*e.Ms) * time.Millisecond)
		}
		if e.Local.After(end) {
			end = e.Local
		}
	}
	out := map[string]int{}
	for _, f := range r.own.Failures {
		off, msg, _ := strings.Cut(f, ": ")
		d, err := time.ParseDuration(off)
		if at := r.own.Start.Add(d); err != nil || at.Before(t0) || at.After(end) {
			continue
		}
		switch {
		case strings.Contains(msg, "connection refused"):
			out["connection-refused"]++
		case strings.Contains(msg, "Timeout exceeded") || strings.Contains(msg, "deadline exceeded"):
			out["timeout"]++
		case strings.Contains(msg, "reset") || strings.Contains(msg, "EOF"):
			out["reset"]++
		default:
			out["other"]++
		}
	}
	return out
}
