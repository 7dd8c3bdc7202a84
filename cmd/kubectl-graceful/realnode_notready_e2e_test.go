package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/internal/localcluster"
	"github.com/kubectl-graceful/kubectl-graceful/internal/realnode"
)

// notReadyWait bounds the wait for the node lifecycle controller to mark
// the stopped kubelet's node Ready Unknown: it does so once a check (every
// localcluster.NodeMonitorPeriod, 5 s) finds no heartbeat for
// localcluster.NodeMonitorGracePeriod (50 s), so at most 55 s after the
// stop; the rest is room for a loaded machine. silenceTimeout is the
// drains' and the watch's --timeout: time to set up, be silent and
// finish.
const (
	notReadyWait   = localcluster.NodeMonitorGracePeriod + localcluster.NodeMonitorPeriod + time.Minute
	silenceTimeout = notReadyWait + 2*time.Minute
)

// TestRealNodeNotReadyMidDrain drains real-node-0 and, once its pod is
// terminating (in its 5 s preStop), stops real-node-0's kubelet (SIGSTOP)
// until the node lifecycle controller marks the node Ready Unknown, then
// resumes it. Under `watch node` and two drains (the first interrupted
// while the node is silent, the second left running):
//   - the interrupted drain's summary says the node stopped reporting,
//     names the pods stuck terminating and that waiting will not help, and
//     calls no pod evicted whose app has not logged its exit;
//   - `watch node` says, while the node is silent, that it stopped
//     reporting, and in its verdict for how long;
//   - once the kubelet is back, the running drain ends drained, after each
//     pod's app logged its own exit.
func TestRealNodeNotReadyMidDrain(t *testing.T) {
	env := e2e.Cluster(t)
	env.RealNodes(t)
	node := realnode.NodeName
	e2e.RepeatRealFault(t, func(t *testing.T) string {
		defer uncordonNow(t, env)
		t.Cleanup(func() {
			env.RestoreRealNodePart(t, node, realnode.PartKubelet)
			// The controller lifts the unreachable taints on its next
			// pass (every 5 s): the next run's pods need the node.
			e2e.WaitFor(t, time.Minute, node+" without the unreachable taint", func() bool { return !unreachable(env, node) })
		})
		ns := env.Namespace(t)
		aloneOn(t, env, ns, node)
		logs := t.TempDir()
		app := createRealApp(t, env, ns, "web", 2, hardenedOpts, withExitLog(logs))
		waitSpread(t, env, ns, 2, app)
		onNode := podsOn(t, env, ns, node)
		// --settle 25s: the node empties about 2 s after its kubelet
		// resumes, but the kubelet posts its status again only on its
		// next sync (every 10 s, nodeStatusUpdateFrequency); the default
		// 3 s of listening after the node is empty could end before the
		// node reports again, as a fresh-clone CI run saw once.
		watch := env.StartKubectl(t, silenceTimeout+time.Minute, "graceful", "watch", "node", node, "--timeout", silenceTimeout.String(), "--settle", "25s")
		first := env.StartKubectl(t, silenceTimeout+time.Minute, "graceful", "drain", "node", node, "--ignore-daemonsets", "--timeout", silenceTimeout.String())
		if !terminatingOn(env, ns, node, 2*time.Minute) {
			first.Interrupt()
			res := first.Wait()
			t.Fatalf("no pod of %s terminating on %s within 2 minutes of the drain's start; the drain (interrupted, exit %d) said:\n%s", ns, node, res.ExitCode, res.Stdout+res.Stderr)
		}
		if err := realnode.Signal(node, realnode.PartKubelet, syscall.SIGSTOP); err != nil {
			t.Fatalf("stopping the kubelet: %v", err)
		}
		stopped := time.Now()
		defer func() { _ = realnode.Signal(node, realnode.PartKubelet, syscall.SIGCONT) }()
		second := env.StartKubectl(t, silenceTimeout+time.Minute, "graceful", "drain", "node", node, "--ignore-daemonsets", "--timeout", silenceTimeout.String())
		e2e.WaitFor(t, notReadyWait, node+" Ready Unknown", func() bool { return readyStatus(env, node) == corev1.ConditionUnknown })
		silent := time.Since(stopped)
		t.Logf("%s Ready Unknown %s after its kubelet was stopped", node, silent.Round(time.Second))

		first.Interrupt()
		res := first.Wait()
		firstCode := res.ExitCode
		out := res.Stdout + res.Stderr
		t.Logf("the first drain, interrupted while the node was silent: exit %d:\n%s", res.ExitCode, out)
		checkSilentSummary(t, out, node, ns, onNode, logs)
		watch.WaitOutput(t, 30*time.Second, "node "+node+" stopped reporting")

		if err := realnode.Signal(node, realnode.PartKubelet, syscall.SIGCONT); err != nil {
			t.Fatalf("resuming the kubelet: %v", err)
		}
		res = second.Wait()
		ended := time.Now()
		out = res.Stdout + res.Stderr
		t.Logf("the second drain, left running: exit %d:\n%s", res.ExitCode, out)
		if res.ExitCode != 0 || !strings.Contains(out, "node "+node+" drained") {
			t.Errorf("the kubelet came back, yet the running drain did not end drained (exit %d)", res.ExitCode)
		}
		for _, pod := range onNode {
			exit, ok := ownExit(t, filepath.Join(logs, pod+".log"))
			if !ok || exit.After(ended) {
				t.Errorf("the drain said drained at %s, but pod %s's app logged its exit %v at %s", ended.Format(time.StampMilli), pod, ok, exit.Format(time.StampMilli))
			}
		}
		w := watch.Wait()
		t.Logf("watch node: exit %d:\n%s", w.ExitCode, w.Stdout+w.Stderr)
		for _, want := range []string{"node " + node + " stopped reporting", "node " + node + " reports again", "node " + node + " stopped reporting: the node lifecycle controller marked it"} {
			if !strings.Contains(w.Stdout, want) {
				t.Errorf("watch node never said %q", want)
			}
		}
		return fmt.Sprintf("Ready Unknown %s after the stop; the first drain exit %d, the second exit %d; watch node exit %d",
			silent.Round(time.Second), firstCode, res.ExitCode, w.ExitCode)
	})
}

// checkSilentSummary holds the summary of a drain that ended while node
// was silent to the cluster and to the apps' own logs: it says the node
// stopped reporting, names each pod still terminating there, says waiting
// will not help, and counts no pod evicted whose app has not logged its
// exit.
func checkSilentSummary(t *testing.T, out, node, ns string, onNode []string, logs string) {
	t.Helper()
	for _, want := range []string{"node " + node + " stopped reporting", "its Ready condition is Unknown", "waiting will not help until the node reports again"} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary does not say %q", want)
		}
	}
	exited := 0
	for _, pod := range onNode {
		if _, ok := ownExit(t, filepath.Join(logs, pod+".log")); ok {
			exited++
			continue
		}
		if !regexp.MustCompile(`stuck terminating on it: [^\n]*` + regexp.QuoteMeta(ns+"/"+pod)).MatchString(out) {
			t.Errorf("pod %s still runs (its app logged no exit), and the summary does not name it stuck terminating", pod)
		}
	}
	// "evicted: N (M still terminating)": an accepted eviction counts as
	// evicted; only the N-M gone may exceed no app's logged exit.
	m := regexp.MustCompile(`evicted: (\d+)(?: \((\d+) still terminating\))?`).FindStringSubmatch(out)
	if m == nil {
		t.Errorf("no count of evicted pods in the summary")
	} else if n, _ := strconv.Atoi(m[1]); n-atoi(m[2]) > exited || strings.Contains(out, "node "+node+" drained") {
		t.Errorf("the summary calls %s pod(s) evicted and gone (or the node drained); only %d app(s) logged their exit", m[0], exited)
	}
}

// readyStatus returns node's Ready condition status, "" when unread.
func readyStatus(env *e2e.Env, node string) corev1.ConditionStatus {
	n, err := env.Client.CoreV1().Nodes().Get(context.Background(), node, metav1.GetOptions{})
	if err != nil {
		return ""
	}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status
		}
	}
	return ""
}

// unreachable reports whether node carries a node.kubernetes.io/unreachable
// taint (or cannot be read).
func unreachable(env *e2e.Env, node string) bool {
	n, err := env.Client.CoreV1().Nodes().Get(context.Background(), node, metav1.GetOptions{})
	if err != nil {
		return true
	}
	for _, taint := range n.Spec.Taints {
		if taint.Key == corev1.TaintNodeUnreachable {
			return true
		}
	}
	return false
}

// aloneOn waits until node holds no pod of another namespace: a real-node
// test that ran before may still be deleting its namespace, and the drain
// would refuse its bare pods.
func aloneOn(t *testing.T, env *e2e.Env, ns, node string) {
	t.Helper()
	e2e.WaitFor(t, e2e.SetupWait, node+" without other tests' pods", func() bool {
		pods, err := env.Client.CoreV1().Pods("").List(context.Background(), metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
		if err != nil {
			return false
		}
		for _, p := range pods.Items {
			if p.Namespace != ns {
				return false
			}
		}
		return true
	})
}

// atoi is s as a number, 0 when empty.
func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
