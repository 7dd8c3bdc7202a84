package timeline_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timeline/render"
)

// liveLine is a live line of the text output: the ms column first.
var liveLine = regexp.MustCompile(`^ *(start|before|[+-][0-9]+ ms)  `)

// liveLines returns the lines a watch prints as things happen: its notes,
// events and gaps, up to the blank line before its chart and verdict.
func liveLines(out string) []string {
	live, _, _ := strings.Cut(out, "\n\n")
	return strings.Split(live, "\n")
}

// checkLinesFit fails when one of lines is wider than render.LineWidth,
// when none is an event's line, or when none was cut though a message was
// long (wantCut).
func checkLinesFit(t *testing.T, what string, lines []string, wantCut bool) {
	t.Helper()
	live, cut := 0, false
	for _, l := range lines {
		if liveLine.MatchString(l) || strings.HasPrefix(l, "[+") {
			live++
			cut = cut || strings.HasSuffix(l, "…")
		}
		if n := len([]rune(l)); n > render.LineWidth {
			t.Errorf("%s: a live line of %d columns, want at most %d: %q", what, n, render.LineWidth, l)
		}
	}
	if live == 0 || (wantCut && !cut) {
		t.Errorf("%s: %d live lines, one cut %v, want a long message cut:\n%s", what, live, cut, strings.Join(lines, "\n"))
	}
}

// long is a Deployment's name whose pods' names take 63 characters, the
// most a pod's hostname takes (the API cuts a generated name there):
// long enough that its ReplicaSet's name, with a pod-template-hash of any
// length (8 characters as well as 10), passes the 58 that generateName
// keeps before its 5 random characters.
const long = "checkout-frontend-with-a-very-long-name-for-e2e-tests"

// By default every live line of `watch pod`, the rollout watch, `watch
// node` and `drain node --watch` fits 120 columns through the real
// kubectl, with pod names of 63 characters, notes and a watch gap (the
// API connection cut) among them; --wide has the whole names and messages.
func TestWatchLinesFit120ColumnsE2E(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)

	t.Run("watch pod", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		pods := createDeployment(t, env, ns, node, long, 2, podOpts{grace: 30, preStop: 5})
		if len(pods[0].Name) != 63 {
			t.Fatalf("pod %s: %d characters, want 63", pods[0].Name, len(pods[0].Name))
		}
		createService(t, env, ns, long, nil, &pods[0])
		proxy, kc := e2e.ProxyTo(t, env.Kubeconfig)
		l := startLive(t, kc, "watch", "pod", pods[0].Name, "-n", ns, "--delete", "--settle", "1s", "--timeout", "90s")
		l.waitFor("Killing", 30*time.Second)
		time.Sleep(500 * time.Millisecond)
		proxy.Cut(2 * time.Second)
		r := l.wait()
		if r.code > 2 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		lines := liveLines(r.stdout)
		checkLinesFit(t, "watch pod", lines, true)
		if !strings.Contains(strings.Join(lines, "\n"), "GAP: ") {
			t.Errorf("watch pod: no gap line after the cut:\n%s", r.stdout)
		}
		stdout, _, _ := kubectl(t, env, "watch", "pod", pods[1].Name, "-n", ns, "--delete", "--settle", "1s", "--timeout", "90s", "--wide")
		if !strings.Contains(stdout, "(as reported by the kubelet") || !strings.Contains(stdout, "note: following pod "+ns+"/"+pods[1].Name+": Services selecting it: "+long+"\n") {
			t.Errorf("watch pod --wide: no whole message or note:\n%s", stdout)
		}
	})
	t.Run("rollout", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		pods := createDeployment(t, env, ns, node, long, 2, podOpts{grace: 30, preStop: 2})
		createService(t, env, ns, long, nil, &pods[0])
		stdout, stderr, code := kubectl(t, env, "watch", "deployment/"+long, "-n", ns, "--restart", "--settle", "1s", "--timeout", "150s")
		if code > 2 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		lines := liveLines(stdout)
		checkLinesFit(t, "rollout", lines, true)
		live := strings.Join(lines, "\n")
		if strings.Contains(live, pods[0].Name) || !strings.Contains(live, pods[0].Name[58:]+" ") {
			t.Errorf("rollout: want the pod's name elided, its end kept:\n%s", live)
		}
	})
	t.Run("watch node and drain --watch", func(t *testing.T) {
		t.Parallel()
		ns := env.Namespace(t)
		watched, drained := env.Node(t), env.Node(t)
		var names []string // the watched node's pods, then the drained one's
		var first *corev1.Pod
		for _, node := range []string{watched, drained} {
			for _, suffix := range []string{"a", "b"} {
				name := long[:47] + "-7d9f8b6c4-x2k" + map[string]string{watched: "w", drained: "d"}[node] + suffix
				names = append(names, name)
				if p := createPod(t, env, ns, node, name, podOpts{grace: 30, preStop: 3}); first == nil {
					first = p
				}
			}
		}
		if len(names[0]) != 63 {
			t.Fatalf("pod %s: %d characters, want 63", names[0], len(names[0]))
		}
		createService(t, env, ns, long, nil, first)

		// watch node through a proxy cut while the drain runs: a gap.
		proxy, kc := e2e.ProxyTo(t, env.Kubeconfig)
		l := startLive(t, kc, "watch", "node", watched, "--settle", "1s", "--timeout", "90s")
		l.waitFor("capacity", time.Minute)
		wide := env.StartKubectl(t, 2*time.Minute, "graceful", "watch", "node", drained, "--settle", "1s", "--timeout", "90s", "--wide")
		wide.WaitOutput(t, time.Minute, "capacity")
		done := make(chan struct{})
		go func() {
			defer close(done)
			if res := env.Kubectl(t, "graceful", "drain", "node", watched, "--force", "--timeout", "90s"); res.ExitCode != 0 {
				t.Errorf("drain node %s: exit %d: %s", watched, res.ExitCode, res.Stderr)
			}
		}()
		l.waitFor("Killing", 30*time.Second)
		proxy.Cut(2 * time.Second)
		<-done
		r := l.wait()
		lines := liveLines(r.stdout)
		checkLinesFit(t, "watch node", lines, false)
		if live := strings.Join(lines, "\n"); !strings.Contains(live, "GAP: ") || !strings.Contains(live, "…-7d9f8b6c4-x2kw") {
			t.Errorf("watch node: want a gap line and the pods' names elided, their ends kept:\n%s", r.stdout)
		}

		res := env.Kubectl(t, "graceful", "drain", "node", drained, "--force", "--watch", "--timeout", "90s")
		if res.ExitCode > 2 {
			t.Fatalf("drain node --watch: exit %d: %s", res.ExitCode, res.Stderr)
		}
		// The preflight (up to its Verdict line) is a report printed once,
		// as the summary's tables are: not live lines.
		var stamped []string
		preflight := true
		for _, l := range strings.Split(res.Stdout, "\n") {
			if preflight {
				preflight = !strings.Contains(l, "Verdict: ")
				continue
			}
			if strings.HasPrefix(l, "[+") && !strings.ContainsAny(l, "│┌├└") {
				stamped = append(stamped, l)
			}
		}
		checkLinesFit(t, "drain --watch", stamped, false)
		if live := strings.Join(stamped, "\n"); !strings.Contains(live, "…-7d9f8b6c4-x2kd") || strings.Contains(live, names[2]) {
			t.Errorf("drain --watch: want the pods' names elided, their ends kept:\n%s", res.Stdout)
		}
		w := wide.Wait()
		if !strings.Contains(w.Stdout, ns+"/"+names[2]+" ") {
			t.Errorf("watch node --wide: want the whole name:\n%s", w.Stdout)
		}
	})
}
