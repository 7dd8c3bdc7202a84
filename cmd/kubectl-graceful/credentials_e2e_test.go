package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// A kubeconfig whose user runs an exec credential plugin that fails: every
// command says so at once, in one error line, and the plugin's own message
// appears once, never a 30 s wait ending in "the API server did not
// answer". No request reaches a server: the plugin fails first.
func TestFailingCredentialPluginIsNamedAtOnce(t *testing.T) {
	e2e.Require(t, "runs the plugin through kubectl")
	dir := t.TempDir()
	plugin := filepath.Join(dir, "login")
	if err := os.WriteFile(plugin, []byte("#!/bin/sh\necho 'login: token expired, run login again' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	kc := filepath.Join(dir, "config")
	if err := os.WriteFile(kc, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]
users:
- name: u
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1, command: `+plugin+`, interactiveMode: Never}
contexts: [{name: ctx, context: {cluster: c, user: u, namespace: shop}}]
current-context: ctx
`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"graceful", "drain", "node", "n1", "--dry-run"},
		{"graceful", "audit"},
		{"graceful", "watch", "pod", "web-0"},
	} {
		t.Run(args[1], func(t *testing.T) {
			start := time.Now()
			res := e2e.RunKubectlFor(t, time.Minute, []string{"KUBECONFIG=" + kc, "HOME=" + dir}, args...)
			took := time.Since(start)
			if res.ExitCode != 1 || took > 10*time.Second {
				t.Errorf("exit %d after %s; want 1 at once\nstderr:\n%s", res.ExitCode, took.Round(time.Millisecond), res.Stderr)
			}
			if n := strings.Count(res.Stderr, "token expired"); n != 1 {
				t.Errorf("the plugin's message appears %d times, want once:\n%s", n, res.Stderr)
			}
			if !strings.Contains(res.Stderr, "getting credentials") || strings.Contains(res.Stderr, "did not answer") {
				t.Errorf("the failure is not named as the credentials':\n%s", res.Stderr)
			}
		})
	}
}
