package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// fakeAutoscaler is a cluster-autoscaler Deployment as a Helm release
// installs it, with --max-graceful-termination-sec; it never runs (no
// node matches its selector): only its arguments are read.
const fakeAutoscaler = `apiVersion: apps/v1
kind: Deployment
metadata: {name: cluster-autoscaler}
spec:
  replicas: 1
  selector: {matchLabels: {app: cluster-autoscaler}}
  template:
    metadata: {labels: {app: cluster-autoscaler}}
    spec:
      nodeSelector: {kubectl-graceful.dev/no-such-node: "true"}
      containers:
      - name: cluster-autoscaler
        image: registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.0
        command: [./cluster-autoscaler, --cloud-provider=aws, --max-graceful-termination-sec=60]
`

// TestAuditLiveDrainerCapOfClusterAutoscaler: a live audit of one
// namespace finds cluster-autoscaler's Deployment in another by its image
// and reads its --max-graceful-termination-sec: a workload whose preStop
// (70 s) and shutdown (5 s assumed) exceed it is named, with the cap, the
// Deployment it was read from and what is cut; from files, no cap.
// Serial: the Deployment is a cap every live audit of the cluster sees.
func TestAuditLiveDrainerCapOfClusterAutoscaler(t *testing.T) {
	env := e2e.Cluster(t)
	ns, caNS := env.Namespace(t), env.Namespace(t)
	kubectl := func(args ...string) e2e.Result { return env.Kubectl(t, args...) }
	dir := t.TempDir()
	app := writeFile(t, dir, "app.yaml", served("slow", `{exec: {command: ["sleep", "70"]}}`))
	for _, a := range []struct{ ns, file string }{{ns, app}, {caNS, writeFile(t, dir, "ca.yaml", fakeAutoscaler)}} {
		if res := kubectl("apply", "-n", a.ns, "-f", a.file); res.ExitCode != 0 {
			t.Fatalf("apply %s: %s", a.file, res.Stderr)
		}
	}
	r := auditJSON(t, kubectl, 0, "-n", ns, "--fail-on", "none")
	f := findingOf(r, "shutdown-exceeds-drainer-cap", "slow")
	want := fmt.Sprintf("= 75 s, more than the cluster-autoscaler's --max-graceful-termination-sec (Deployment %s/cluster-autoscaler) cap of 60 s: the last 15 s are cut", caNS)
	if f == nil || !strings.Contains(f.Message, "preStop 70 s + app shutdown 5 s (assumed") || !strings.Contains(f.Message, want) {
		t.Errorf("want the cap read live named:\n%s\ngot %+v", want, f)
	}
	files := auditJSON(t, kubectl, 0, "-f", app, "--fail-on", "none")
	if f := findingOf(files, "shutdown-exceeds-drainer-cap", "slow"); f != nil {
		t.Errorf("from files no drainer's cap is read: got %+v", f)
	}
}
