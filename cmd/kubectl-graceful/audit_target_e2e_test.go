package main

import (
	"os"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// servedDeployment is a Deployment named NAME behind a Service of its own,
// with preStop hook HOOK (YAML flow style): nothing else for the audit to
// find but what the hook and the target make of it.
const servedDeployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: NAME}
spec:
  replicas: 1
  selector: {matchLabels: {app: NAME}}
  template:
    metadata: {labels: {app: NAME}}
    spec:
      containers:
      - name: app
        image: nginx:1.27
        ports: [{name: http, containerPort: 8080}]
        readinessProbe: {httpGet: {path: /ready, port: http}}
        lifecycle: {preStop: HOOK}
---
apiVersion: v1
kind: Service
metadata: {name: NAME}
spec:
  selector: {app: NAME}
  ports: [{port: 80, targetPort: http}]
`

func served(name, hook string) string {
	return strings.NewReplacer("NAME", name, "HOOK", hook).Replace(servedDeployment)
}

// filesRun runs `kubectl graceful audit ARGS` through the real kubectl
// with no cluster (the kubeconfig names a closed port).
func filesRun(t *testing.T) func(args ...string) e2e.Result {
	kc := writeKubeconfig(t, "shop")
	home := t.TempDir()
	return func(args ...string) e2e.Result {
		return e2e.RunKubectl(t, []string{"KUBECONFIG=" + kc, "HOME=" + home}, args...)
	}
}

// TestAuditHooksOfUnknownLengthThroughKubectl: an exec hook that is not a
// plain sleep and an httpGet hook are said to be of unknown length (info),
// with the command quoted and escaped; a tcpSocket hook, which kubelet
// does not run, is a warning; none is passed in silence, whatever
// --prestop-floor is.
func TestAuditHooksOfUnknownLengthThroughKubectl(t *testing.T) {
	e2e.Require(t, "runs the plugin through kubectl")
	run := filesRun(t)
	file := writeFile(t, t.TempDir(), "hooks.yaml", served("script", `{exec: {command: ["/bin/sh", "-c", "/app/drain && echo \"done\u001b[2J\""]}}`)+"---\n"+
		served("http", `{httpGet: {path: /drain, port: 8080}}`)+"---\n"+served("tcp", `{tcpSocket: {port: 8080}}`))
	for _, floor := range []string{"5", "0"} {
		r := auditJSON(t, run, 2, "-f", file, "--prestop-floor", floor, "--fail-on", "warning")
		for name, want := range map[string]string{
			"script": `preStop runs exec ["/bin/sh", "-c", "/app/drain && echo \"done\x1b[2J\""]: its delay is unknown`,
			"http":   `preStop runs httpGet ":8080/drain": its delay is unknown`,
			"tcp":    "preStop is a tcpSocket hook, which kubelet does not run",
		} {
			f := findingOf(r, "prestop-delay-unknown", name)
			if f == nil || !strings.Contains(f.Message, want) {
				t.Errorf("--prestop-floor %s, %s: want %q, got %+v", floor, name, want, f)
			}
		}
		if f := findingOf(r, "prestop-delay-unknown", "tcp"); f == nil || f.Severity != "warning" {
			t.Errorf("tcpSocket: want a warning, got %+v", f)
		}
	}
	res := run("graceful", "audit", "-f", file, "--fail-on", "none")
	if res.ExitCode != 0 || strings.Contains(res.Stdout, "\x1b") || !strings.Contains(res.Stdout, `\x1b[2J`) {
		t.Errorf("table: exit %d, want 0 and the hook's escape sequence escaped:\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	}
}

// TestAuditFieldsTheTargetDoesNotTakeThroughKubectl: a native preStop
// sleep under --kube-version 1.29 is an error naming 1.30; at 1.30 it is
// not; --fix writes an exec sleep instead and says so, after which the
// audit at 1.29 finds nothing of it; a native sidecar under 1.28 is left
// manual.
func TestAuditFieldsTheTargetDoesNotTakeThroughKubectl(t *testing.T) {
	e2e.Require(t, "runs the plugin through kubectl")
	run := filesRun(t)
	dir := t.TempDir()
	file := writeFile(t, dir, "web.yaml", served("web", `{sleep: {seconds: 10}}`))

	r := auditJSON(t, run, 2, "-f", file, "--kube-version", "1.29")
	f := findingOf(r, "field-newer-than-target", "web")
	if f == nil || f.Severity != "error" || !strings.Contains(f.Message, "lifecycle.preStop.sleep needs Kubernetes 1.30 (audit target: 1.29)") {
		t.Errorf("1.29: want field-newer-than-target naming 1.30, got %+v", f)
	}
	if r := auditJSON(t, run, 0, "-f", file, "--kube-version", "1.30"); findingOf(r, "field-newer-than-target", "web") != nil {
		t.Errorf("1.30 takes the native sleep: got %+v", r.Findings)
	}

	res := run("graceful", "audit", "-f", file, "--kube-version", "1.29", "--fix")
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "preStop of app: sleep 10 s -> exec sleep 10 s (Kubernetes 1.29 does not take lifecycle.preStop.sleep)") {
		t.Fatalf("--fix at 1.29: exit %d, want 0 and the exec sleep said:\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `command: ["sleep", "10"]`) || strings.Contains(string(b), "seconds:") {
		t.Errorf("--fix wrote a field 1.29 does not take:\n%s", b)
	}
	if r := auditJSON(t, run, 0, "-f", file, "--kube-version", "1.29"); findingOf(r, "field-newer-than-target", "web") != nil {
		t.Errorf("after --fix: got %+v", r.Findings)
	}

	side := writeFile(t, dir, "side.yaml", strings.Replace(served("side", `{exec: {command: ["sleep", "5"]}}`), "      containers:\n",
		"      initContainers: [{name: proxy, image: envoyproxy/envoy:v1.31, restartPolicy: Always}]\n      containers:\n", 1))
	res = run("graceful", "audit", "-f", side, "--kube-version", "1.28", "--fix")
	if !strings.Contains(res.Stdout, "manual  shop/Deployment/side field-newer-than-target") || !strings.Contains(res.Stdout, "not done: the target Kubernetes version does not take a field") {
		t.Errorf("native sidecar at 1.28: want it manual, with why:\n%s%s", res.Stdout, res.Stderr)
	}
}
