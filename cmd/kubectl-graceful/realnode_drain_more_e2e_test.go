package main

import (
	"bufio"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/internal/realnode"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timeline/render"
)

// The same naive and hardened Deployments while kubectl's own drain
// empties real-node-0 and `watch node real-node-0` follows it: the test's
// loop is the truth, the watch's verdict must agree with it (a failure
// seen is a risk named; the hardened one loses none and is no risk).
func TestRealKubectlDrainUnderWatchNode(t *testing.T) {
	env := e2e.Cluster(t)
	env.RealNodes(t)
	defer e2e.GuardUntouched(t)()
	defer uncordonNow(t, env)
	ns := env.Namespace(t)
	naive := createRealApp(t, env, ns, "naive", 3, naiveOpts)
	hardened := createRealApp(t, env, ns, "hardened", 3, hardenedOpts)
	waitSpread(t, env, ns, 6, naive, hardened)

	w := env.StartKubectl(t, 4*time.Minute, "graceful", "watch", "node", realnode.NodeName, "-o", "json", "--settle", "2s", "--timeout", "3m")
	w.WaitOutput(t, time.Minute, `"type":"capacity"`)
	stop := make(chan struct{})
	counts := loops(t, stop, naive, hardened)
	time.Sleep(time.Second)
	d := e2e.RunKubectlFor(t, 4*time.Minute, []string{"KUBECONFIG=" + env.Kubeconfig},
		"drain", realnode.NodeName, "--ignore-daemonsets", "--timeout", "3m")
	uncordonNow(t, env)
	if d.ExitCode != 0 {
		t.Fatalf("kubectl drain: exit %d\n%s\n%s", d.ExitCode, d.Stdout, d.Stderr)
	}
	res := w.Wait()
	time.Sleep(2 * time.Second)
	close(stop)
	got := counts()
	s := nodeSummary(t, res)
	for name, r := range got {
		t.Logf("%s: %d requests, %d failed %v", name, r.Sent, len(r.Failures), r.Failures)
	}
	risk := map[string]bool{}
	for _, wr := range s.Verdict.Workloads {
		risk[wr.Workload.Name] = wr.Risk
	}
	if n := len(got["hardened"].Failures); n != 0 || risk["hardened"] {
		t.Errorf("hardened: the test's loop saw %d failed requests, the watch says risk %v: want none and no risk", n, risk["hardened"])
	}
	// The naive pods race kube-proxy on every eviction; most drains lose
	// requests, some lose none (docs/probe.md). The risk is named either
	// way (no preStop), and must be whenever the loop saw a failure.
	if n := len(got["naive"].Failures); !risk["naive"] {
		t.Errorf("naive: the test's loop saw %d failed requests, the watch says no risk: want the risk named (no preStop)", n)
	}
	if res.ExitCode != 2 || s.Verdict.Ended != "empty" {
		t.Errorf("watch node: exit %d, ended %q; want 2 and empty", res.ExitCode, s.Verdict.Ended)
	}
}

// nodeSummary decodes the last line of `watch node -o json`.
func nodeSummary(t *testing.T, res e2e.Result) render.NodeJSONSummary {
	t.Helper()
	var last string
	sc := bufio.NewScanner(strings.NewReader(res.Stdout))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		last = sc.Text()
	}
	var s render.NodeJSONSummary
	if err := json.Unmarshal([]byte(last), &s); err != nil || s.Type != "summary" {
		t.Fatalf("no summary line (%v) in:\n%s\nstderr:\n%s", err, res.Stdout, res.Stderr)
	}
	return s
}

// A budget that holds the second pod on real-node-0 until the first one's
// replacement is Ready on real-node-1 (it turns Ready 4 s after it
// starts): the drain waits, says why, then finishes, and every pod ends on
// real-node-1.
func TestRealDrainWaitsForReplacement(t *testing.T) {
	env := e2e.Cluster(t)
	env.RealNodes(t)
	defer e2e.GuardUntouched(t)()
	defer uncordonNow(t, env)
	ns := env.Namespace(t)
	// Four pods spread two and two (maxSkew 1): two on real-node-0 under
	// maxUnavailable 1.
	app := createRealApp(t, env, ns, "slow", 4, hardenedOpts, func(s *corev1.PodSpec) {
		s.Containers[0].ReadinessProbe.InitialDelaySeconds = 4
	})
	waitSpread(t, env, ns, 4, app)
	start := time.Now()
	res := e2e.RunKubectlFor(t, 4*time.Minute, []string{"KUBECONFIG=" + env.Kubeconfig},
		"graceful", "drain", "node", realnode.NodeName, "--ignore-daemonsets", "--timeout", "3m")
	took := time.Since(start)
	uncordonNow(t, env)
	out := res.Stdout + res.Stderr
	t.Logf("drain exit %d after %s:\n%s", res.ExitCode, took, out)
	if res.ExitCode != 0 {
		t.Fatalf("drain: exit %d, want 0", res.ExitCode)
	}
	if !strings.Contains(out, "The disruption budget slow") {
		t.Errorf("the drain does not say that the budget slow held a pod")
	}
	if took < 4*time.Second {
		t.Errorf("the drain took %s: it cannot have waited for a replacement Ready 4 s after its start", took)
	}
	pods, err := env.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil && p.Spec.NodeName != realnode.SecondNodeName {
			t.Errorf("pod %s is on %q after the drain, want %s", p.Name, p.Spec.NodeName, realnode.SecondNodeName)
		}
	}
}

// Ctrl-C while pods terminate on real-node-0 (a 20 s preStop): the summary
// names the pods still terminating, real-node-0 stays cordoned by the
// drain and no other node is cordoned.
func TestRealDrainInterrupted(t *testing.T) {
	env := e2e.Cluster(t)
	env.RealNodes(t)
	defer e2e.GuardUntouched(t)()
	defer uncordonNow(t, env)
	ns := env.Namespace(t)
	long := realnode.PodOpts{SigtermAction: "exit", PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 20}}}
	app := createRealApp(t, env, ns, "long", 2, long)
	waitSpread(t, env, ns, 2, app)
	d := env.StartKubectl(t, 3*time.Minute, "graceful", "drain", "node", realnode.NodeName, "--ignore-daemonsets", "--watch", "--timeout", "2m")
	e2e.WaitFor(t, time.Minute, "a pod of long terminating on "+realnode.NodeName, func() bool {
		pods, err := env.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return false
		}
		for _, p := range pods.Items {
			if p.DeletionTimestamp != nil && p.Spec.NodeName == realnode.NodeName {
				return true
			}
		}
		return false
	})
	time.Sleep(time.Second)
	d.Interrupt()
	res := d.Wait()
	out := res.Stdout + res.Stderr
	t.Logf("drain --watch interrupted, exit %d:\n%s", res.ExitCode, out)
	if res.ExitCode != 2 || !strings.Contains(out, "still terminating: 1 ("+ns+"/long-") {
		t.Errorf("exit %d: want 2 and the summary naming the pod still terminating", res.ExitCode)
	}
	for _, name := range []string{realnode.NodeName, realnode.SecondNodeName} {
		n, err := env.Client.CoreV1().Nodes().Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if want := name == realnode.NodeName; n.Spec.Unschedulable != want {
			t.Errorf("node %s unschedulable %v after the interrupted drain, want %v (only the drained node cordoned, by the drain)", name, n.Spec.Unschedulable, want)
		}
	}
}
