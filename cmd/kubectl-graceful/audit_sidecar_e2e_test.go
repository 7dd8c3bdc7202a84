package main

import (
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// meshed is served's Deployment with preStop sleep 15 beside a native
// sidecar istio-proxy whose preStop ends it at once (pilot-agent's
// quitquitquit, with an escape sequence in it).
func meshed() string {
	return strings.Replace(served("meshed", `{sleep: {seconds: 15}}`), "      containers:\n", `      initContainers:
      - name: istio-proxy
        image: istio/proxyv2:1.24
        restartPolicy: Always
        lifecycle: {preStop: {exec: {command: ["pilot-agent", "request", "POST", "quitquitquit\u001b[2J"]}}}
      containers:
`, 1)
}

// TestAuditSidecarThatQuitsThroughKubectl: a native sidecar whose preStop
// shuts it down at once is flagged by sidecar-stops-first with the hook
// quoted, and its escape sequence never reaches the terminal.
func TestAuditSidecarThatQuitsThroughKubectl(t *testing.T) {
	e2e.Require(t, "runs the plugin through kubectl")
	run := filesRun(t)
	file := writeFile(t, t.TempDir(), "meshed.yaml", meshed())
	r := auditJSON(t, run, 2, "-f", file, "--kube-version", "1.31", "--fail-on", "warning")
	f := findingOf(r, "sidecar-stops-first", "meshed")
	want := `native sidecar istio-proxy has a preStop hook that shuts it down at once, exec ["pilot-agent", "request", "POST", "quitquitquit\x1b[2J"]: the kubelet runs it at the start of termination, while app still waits in its 15 s preStop and serves, so the app keeps serving through a proxy that is gone`
	if f == nil || f.Severity != "warning" || f.Container != "istio-proxy" || f.Message != want {
		t.Errorf("want sidecar-stops-first (warning) on istio-proxy:\n%s\ngot %+v", want, f)
	}
	res := run("graceful", "audit", "-f", file, "--kube-version", "1.31")
	if res.ExitCode != 0 || strings.Contains(res.Stdout, "\x1b") || !strings.Contains(res.Stdout, "shuts it down at once") {
		t.Errorf("table: exit %d, want 0 (--fail-on error), the finding and the escape escaped:\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	}
}
