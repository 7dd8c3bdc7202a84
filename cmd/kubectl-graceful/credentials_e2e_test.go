package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// A kubeconfig whose user runs an exec credential plugin that fails: every
// command says so at once, in one error line, and the plugin's own message
// appears once, never a 30 s wait ending in "the API server did not
// answer". No request reaches a server: the plugin fails first. A workload
// (TYPE/NAME or TYPE NAME) is looked up through discovery first, which
// must not run the plugin a second time.
func TestFailingCredentialPluginIsNamedAtOnce(t *testing.T) {
	t.Parallel()
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
	e2e.Binary(t) // built before the clock starts
	for _, args := range [][]string{
		{"graceful", "drain", "node", "n1", "--dry-run"},
		{"graceful", "audit"},
		{"graceful", "watch", "pod", "web-0"},
		{"graceful", "watch", "deployment/web"},
		{"graceful", "watch", "deploy", "web"},
	} {
		t.Run(strings.Join(args[1:], "_"), func(t *testing.T) {
			start := time.Now()
			res := e2e.RunKubectlFor(t, time.Minute, []string{"KUBECONFIG=" + kc, "HOME=" + dir}, args...)
			took := time.Since(start)
			if res.ExitCode != 1 || took > 10*time.Second {
				t.Errorf("exit %d after %s; want 1 at once\nstderr:\n%s", res.ExitCode, took.Round(time.Millisecond), res.Stderr)
			}
			if n := strings.Count(res.Stderr, "token expired"); n != 1 {
				t.Errorf("the plugin's message appears %d times, want once:\n%s", n, res.Stderr)
			}
			// The cluster was never asked: no "cannot reach" either.
			if !strings.Contains(res.Stderr, "getting credentials") || strings.Contains(res.Stderr, "did not answer") ||
				strings.Contains(res.Stderr, "cannot reach") {
				t.Errorf("the failure is not named as the credentials':\n%s", res.Stderr)
			}
		})
	}
}

// A kubeconfig of the local cluster whose user runs an exec credential
// plugin that hangs: client-go runs it with no timeout of its own, so
// every command ends at --request-timeout or --timeout, naming the plugin,
// exit 1, and the drain changes nothing (the node is not cordoned). The
// plugin closes its output as it hangs: a plugin left running keeps the
// stderr it inherited open, which this test's pipe would wait for.
func TestHangingCredentialPluginIsBounded(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	dir := t.TempDir()
	plugin := filepath.Join(dir, "login")
	if err := os.WriteFile(plugin, []byte("#!/bin/sh\nexec sleep 120 >/dev/null 2>&1 </dev/null\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	kc := hangingPluginKubeconfig(t, env.Kubeconfig, plugin)
	node := env.Node(t)
	e2e.Binary(t) // built before the clock starts
	for _, args := range [][]string{
		{"graceful", "audit", "--request-timeout", "3s"},
		{"graceful", "watch", "pod", "web-0", "--request-timeout", "3s"},
		{"graceful", "watch", "pod", "web-0", "--timeout", "3s"},
		{"graceful", "drain", "node", node, "--timeout", "3s", "--request-timeout", "3s"},
		{"graceful", "drain", "node", node, "--dry-run", "--request-timeout", "3s"},
	} {
		t.Run(strings.Join(args[1:], "_"), func(t *testing.T) {
			start := time.Now()
			res := e2e.RunKubectlFor(t, time.Minute, []string{"KUBECONFIG=" + kc, "HOME=" + dir}, args...)
			took := time.Since(start)
			t.Logf("exit %d after %s: %s", res.ExitCode, took.Round(time.Millisecond), res.Stderr)
			if res.ExitCode != 1 || took > 15*time.Second {
				t.Errorf("exit %d after %s; want 1 within about 3 s\nstderr:\n%s", res.ExitCode, took.Round(time.Millisecond), res.Stderr)
			}
			// The wait it names is the one measured: 3 s, or a tenth or a
			// few more where the machine was slow to wake the request.
			want := regexp.MustCompile("the credential plugin " + regexp.QuoteMeta(plugin) + ` did not answer within 3(\.[0-4])?s`)
			if !want.MatchString(res.Stderr) || strings.Contains(res.Stderr, "API server did not answer") {
				t.Errorf("stderr does not say %q:\n%s", want, res.Stderr)
			}
		})
	}
	if out := env.Kubectl(t, "get", "node", node, "-o", "jsonpath={.spec.unschedulable}"); strings.TrimSpace(out.Stdout) == "true" {
		t.Errorf("node %s was cordoned by a drain that never got credentials", node)
	}
}

// hangingPluginKubeconfig writes a copy of kubeconfig whose users run
// plugin instead of their own credentials.
func hangingPluginKubeconfig(t *testing.T, kubeconfig, plugin string) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if err := clientcmd.ResolveLocalPaths(cfg); err != nil {
		t.Fatal(err)
	}
	for name := range cfg.AuthInfos {
		cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{
			APIVersion: "client.authentication.k8s.io/v1", Command: plugin, InteractiveMode: clientcmdapi.NeverExecInteractiveMode}}
	}
	path := filepath.Join(t.TempDir(), "config")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// stalledWithin4s is the stall's message for a 4 s bound, as measured.
var stalledWithin4s = regexp.MustCompile(`the API server stalled: no answer within (3\.[89]|4|4\.[0-4])s`)

// An API server whose connections stall (a loopback proxy of the test's
// own holds back everything the server sends, the TLS handshake
// included): drain and watch end at --timeout or --request-timeout, say
// the API server stalled, exit 1, and the drain changes nothing.
func TestStalledAPIServerIsBounded(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	node, ns := env.Node(t), env.Namespace(t)
	proxy, kc := e2e.ProxyTo(t, env.Kubeconfig)
	e2e.Binary(t) // built before the clock starts
	proxy.Pause(10 * time.Minute)
	for _, args := range [][]string{
		{"graceful", "drain", "node", node, "--timeout", "4s", "--request-timeout", "4s"},
		{"graceful", "drain", "node", node, "--dry-run", "--request-timeout", "4s"},
		{"graceful", "watch", "pod", "web-0", "-n", ns, "--timeout", "4s"},
		{"graceful", "watch", "pod", "web-0", "-n", ns, "--request-timeout", "4s"},
	} {
		t.Run(strings.Join(args[1:], "_"), func(t *testing.T) {
			start := time.Now()
			res := e2e.RunKubectlFor(t, time.Minute, []string{"KUBECONFIG=" + kc}, args...)
			took := time.Since(start)
			t.Logf("exit %d after %s: %s", res.ExitCode, took.Round(time.Millisecond), res.Stderr)
			if res.ExitCode != 1 || took > 15*time.Second {
				t.Errorf("exit %d after %s; want 1 within about 4 s\nstderr:\n%s", res.ExitCode, took.Round(time.Millisecond), res.Stderr)
			}
			// The wait is measured: on a loaded machine the deadline's
			// timer fires a little late (4.1 s in a CI run).
			if !stalledWithin4s.MatchString(res.Stderr) {
				t.Errorf("stderr does not say the API server stalled:\n%s", res.Stderr)
			}
		})
	}
	if out := env.Kubectl(t, "get", "node", node, "-o", "jsonpath={.spec.unschedulable}"); strings.TrimSpace(out.Stdout) == "true" {
		t.Errorf("node %s was cordoned by a drain that never got an answer", node)
	}
}
