package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// kongGrace is Kong/charts#639's mistake: the grace period written in the
// container, where the API type has no such field.
const kongGrace = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: proxy
spec:
  replicas: 2
  selector:
    matchLabels: {app: proxy}
  template:
    metadata:
      labels: {app: proxy}
    spec:
      containers:
        - name: proxy
          image: kong:3.9
          terminationGracePeriodSeconds: 45
`

// A pod-spec field written in the one container that holds it, the pod
// spec setting none: the real API server refuses the manifest (strict
// field validation), `audit --fix` moves the field to the pod spec, and
// the API server then takes it with the grace period of 45 s meant.
func TestAuditFixMovesAFieldToThePodSpec(t *testing.T) {
	env := e2e.Cluster(t)
	ns := env.Namespace(t)
	file := filepath.Join(t.TempDir(), "proxy.yaml")
	if err := os.WriteFile(file, []byte(kongGrace), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := env.Kubectl(t, "apply", "--dry-run=server", "-n", ns, "-f", file); r.ExitCode == 0 || !strings.Contains(r.Stderr, "unknown field") {
		t.Fatalf("the API server took the manifest before the fix (exit %d): %s", r.ExitCode, r.Stderr)
	}
	res := e2e.RunKubectl(t, []string{"KUBECONFIG="}, "graceful", "audit", "-f", file, "--fix")
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "terminationGracePeriodSeconds moved from container proxy to the pod spec") {
		t.Fatalf("--fix: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	r := env.Kubectl(t, "apply", "--dry-run=server", "-n", ns, "-f", file, "-o", "jsonpath={.spec.template.spec.terminationGracePeriodSeconds}")
	if r.ExitCode != 0 || r.Stdout != "45" {
		t.Errorf("after --fix: exit %d, grace %q, want accepted with 45: %s", r.ExitCode, r.Stdout, r.Stderr)
	}
}
