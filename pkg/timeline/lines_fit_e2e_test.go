package timeline_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timeline/render"
)

// liveLine is a live line of the text output: the ms column first.
var liveLine = regexp.MustCompile(`^ *(start|before|[+-][0-9]+ ms)  `)

// checkLinesFit fails when a live line of out is wider than
// render.LineWidth, or when none was cut though a message was long.
func checkLinesFit(t *testing.T, what, out string, wantCut bool) {
	t.Helper()
	live, cut := 0, false
	for _, l := range strings.Split(out, "\n") {
		if !liveLine.MatchString(l) {
			continue
		}
		live++
		cut = cut || strings.HasSuffix(l, "…")
		if n := len([]rune(l)); n > render.LineWidth {
			t.Errorf("%s: a live line of %d columns, want at most %d: %q", what, n, render.LineWidth, l)
		}
	}
	if live == 0 || (wantCut && !cut) {
		t.Errorf("%s: %d live lines, one cut %v, want a long message cut:\n%s", what, live, cut, out)
	}
}

// By default the live lines of `watch pod` and of the rollout watch fit
// 120 columns, with long pod and Deployment names, through the real
// kubectl; --wide has the whole messages.
func TestWatchLinesFit120ColumnsE2E(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	const long = "checkout-frontend-long-name-here" // pods: 49 characters

	t.Run("watch pod", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		pods := createDeployment(t, env, ns, node, long, 2, podOpts{grace: 30, preStop: 2})
		createService(t, env, ns, long, nil, &pods[0])
		args := []string{"watch", "pod", pods[0].Name, "-n", ns, "--delete", "--settle", "1s", "--timeout", "90s"}
		stdout, stderr, code := kubectl(t, env, args...)
		if code > 2 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		checkLinesFit(t, "watch pod", stdout, true)
		stdout, _, _ = kubectl(t, env, "watch", "pod", pods[1].Name, "-n", ns, "--delete", "--settle", "1s", "--timeout", "90s", "--wide")
		if !strings.Contains(stdout, "(as reported by the kubelet") {
			t.Errorf("watch pod --wide: no whole message:\n%s", stdout)
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
		checkLinesFit(t, "rollout", stdout, true)
	})
}
