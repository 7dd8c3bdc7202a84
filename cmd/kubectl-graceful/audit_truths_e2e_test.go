package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

func writeManifest(t *testing.T, text string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "m.yaml")
	if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestAuditUnknownFieldsTheAPIServerRefuses: what the audit says of an
// unknown field and of a native sleep above the grace period is what the
// API server does with a strict apply (kubernetes/ingress-gce#2222).
func TestAuditUnknownFieldsTheAPIServerRefuses(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	ns := env.Namespace(t)
	kubectl := func(args ...string) e2e.Result { return env.Kubectl(t, args...) }
	for _, tc := range []struct {
		name, manifest, apply, audit string
	}{
		{"misspelled preStop", strings.Replace(hpaFloorBudget[:strings.Index(hpaFloorBudget, "---")], "image: example.com/app:1}", "image: example.com/app:1, lifecycle: {preStopHook: {sleep: {seconds: 5}}}}", 1),
			`unknown field "spec.template.spec.containers[0].lifecycle.preStopHook"`, `the closest known field is "preStop"`},
		{"misspelled minAvailable", "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web}\nspec:\n  minAvailible: 1\n  selector: {matchLabels: {app: web}}\n",
			`unknown field "spec.minAvailible"`, `the closest known field is "minAvailable"`},
		{"sleep above the grace period", strings.Replace(hpaFloorBudget[:strings.Index(hpaFloorBudget, "---")], "spec: {containers: [{name: app, image: example.com/app:1}]}",
			"spec: {terminationGracePeriodSeconds: 20, containers: [{name: app, image: example.com/app:1, lifecycle: {preStop: {sleep: {seconds: 30}}}}]}", 1),
			"must be non-negative and less than terminationGracePeriodSeconds (20)", `the API server refuses it ("must be non-negative and less than terminationGracePeriodSeconds (20)"), so the apply fails`},
	} {
		f := writeManifest(t, tc.manifest)
		res := kubectl("apply", "--validate=strict", "-n", ns, "-f", f)
		if res.ExitCode == 0 || !strings.Contains(res.Stderr, tc.apply) {
			t.Errorf("%s: kubectl apply exit %d, stderr %q; want a refusal containing %q", tc.name, res.ExitCode, res.Stderr, tc.apply)
		}
		r := auditJSON(t, kubectl, 2, "-f", f)
		found := false
		for _, fd := range r.Findings {
			found = found || strings.Contains(fd.Message, tc.audit)
		}
		if !found {
			t.Errorf("%s: audit lacks %q: %v", tc.name, tc.audit, keys(r))
		}
	}
}

// TestAuditScaledObjectAndHPAAtZeroLive: with KEDA's CRD installed, a live
// audit reads a ScaledObject's minReplicaCount as the floor
// (stackrox/kube-linter#711); an HPA over a workload at replicas 0 is not
// read as its floor, and the report says so.
func TestAuditScaledObjectAndHPAAtZeroLive(t *testing.T) {
	env := e2e.Cluster(t)
	kubectl := func(args ...string) e2e.Result { return env.Kubectl(t, args...) }
	if res := kubectl("apply", "-f", "testdata/keda/crd.yaml"); res.ExitCode != 0 {
		t.Fatalf("apply CRD: %s", res.Stderr)
	}
	t.Cleanup(func() { kubectl("delete", "-f", "testdata/keda/crd.yaml", "--wait=false") })
	if res := kubectl("wait", "--for=condition=Established", "--timeout=60s", "crd/scaledobjects.keda.sh"); res.ExitCode != 0 {
		t.Fatalf("CRD not established: %s", res.Stderr)
	}
	ns := env.Namespace(t)
	scaled := strings.Replace(hpaFloorBudget[:strings.Index(hpaFloorBudget, "---")], "replicas: 3", "replicas: 1", 1) + `---
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: web-scaler}
spec:
  scaleTargetRef: {name: web}
  minReplicaCount: 3
  maxReplicaCount: 10
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec:
  minAvailable: 3
  selector: {matchLabels: {app: web}}
`
	f := writeManifest(t, scaled)
	e2e.WaitFor(t, time.Minute, "the ScaledObject kind to be served", func() bool {
		return kubectl("apply", "-n", ns, "-f", f).ExitCode == 0
	})
	waitForPods(t, env, ns)
	for name, args := range map[string][]string{"live": {"-n", ns}, "manifests": {"-n", ns, "-f", f}} {
		r := auditJSON(t, kubectl, 2, args...)
		found := false
		for _, fd := range r.Findings {
			found = found || (fd.Check == "pdb-blocks-eviction" && strings.Contains(fd.Message, "minReplicaCount 3 of ScaledObject web-scaler"))
		}
		if !found {
			t.Errorf("%s audit: no pdb-blocks-eviction naming the ScaledObject: %v", name, keys(r))
		}
	}

	ns0 := env.Namespace(t)
	zero := writeManifest(t, strings.Replace(hpaFloorBudget, "replicas: 3", "replicas: 0", 1))
	if res := kubectl("apply", "-n", ns0, "-f", zero); res.ExitCode != 0 {
		t.Fatalf("apply: %s", res.Stderr)
	}
	r := auditJSON(t, kubectl, 0, "-n", ns0, "--fail-on", "error")
	if !strings.Contains(strings.Join(r.Notes, "\n"), "HorizontalPodAutoscaler "+ns0+"/web-hpa does not scale Deployment/web: its replicas are 0") {
		t.Errorf("notes %q: want the HPA at zero named", r.Notes)
	}
	for _, fd := range r.Findings {
		if fd.Check == "pdb-blocks-eviction" {
			t.Errorf("budget over a workload at 0 read with the HPA's floor: %s", fd.Message)
		}
	}
}

// TestAuditUnreadNeighbourSaid: a VerticalPodAutoscaler naming the
// workload changes its pods in a way the audit does not judge: the report
// says so in one line, in the text and in -o json, through kubectl.
func TestAuditUnreadNeighbourSaid(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	kubectl := func(args ...string) e2e.Result { return env.Kubectl(t, args...) }
	f := writeManifest(t, hpaFloorBudget[:strings.Index(hpaFloorBudget, "---")]+`---
apiVersion: autoscaling.k8s.io/v1
kind: VerticalPodAutoscaler
metadata: {name: web-vpa, namespace: shop}
spec:
  targetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
`)
	want := "VerticalPodAutoscaler shop/web-vpa names Deployment shop/web (spec.targetRef), and the audit does not read that kind"
	r := auditJSON(t, kubectl, 0, "-n", "shop", "-f", f, "--fail-on", "none")
	if !strings.Contains(strings.Join(r.Notes, "\n"), want) {
		t.Errorf("notes %q: want %q", r.Notes, want)
	}
	if res := kubectl("graceful", "audit", "-n", "shop", "-f", f, "--fail-on", "none"); strings.Count(res.Stdout+res.Stderr, want) != 1 {
		t.Errorf("text output: want %q once:\n%s%s", want, res.Stdout, res.Stderr)
	}
}

// TestDrainPreflightToleratesCordon: kubernetes-sigs/karpenter#1839, a
// pod that tolerates every taint may come back to the cordoned node: the
// drain preflight names it as a blocker.
func TestDrainPreflightToleratesCordon(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	ns := env.Namespace(t)
	node := env.Node(t)
	kubectl := func(args ...string) e2e.Result { return env.Kubectl(t, args...) }
	f := writeManifest(t, `apiVersion: apps/v1
kind: Deployment
metadata: {name: everywhere}
spec:
  replicas: 1
  selector: {matchLabels: {app: everywhere}}
  template:
    metadata: {labels: {app: everywhere}}
    spec:
      nodeSelector: {e2e.graceful.test/node: `+node+`}
      tolerations: [{operator: Exists}]
      containers: [{name: app, image: example.com/app:1}]
`)
	if res := kubectl("apply", "-n", ns, "-f", f); res.ExitCode != 0 {
		t.Fatalf("apply: %s", res.Stderr)
	}
	waitForPods(t, env, ns)
	env.WaitReadyPods(t, ns, 1, time.Minute)
	res := kubectl("graceful", "drain", "node", node, "--ignore-daemonsets", "--dry-run=client")
	if !strings.Contains(res.Stdout, "tolerates-cordon") || !strings.Contains(res.Stdout, "may be scheduled back on "+node) {
		t.Errorf("exit %d, stdout:\n%s\nstderr: %s\nwant a tolerates-cordon blocker", res.ExitCode, res.Stdout, res.Stderr)
	}
	r := auditJSON(t, kubectl, 0, "-n", ns, "--fail-on", "error")
	found := false
	for _, fd := range r.Findings {
		found = found || fd.Check == "tolerates-cordon"
	}
	if !found {
		t.Errorf("audit: no tolerates-cordon: %v", keys(r))
	}
}

// TestAuditStopSignalDroppedByDefault: the local cluster's API server
// (ContainerStopSignals off, its default through 1.37) stores a template
// with lifecycle.stopSignal without it, as the audit says.
func TestAuditStopSignalDroppedByDefault(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	ns := env.Namespace(t)
	kubectl := func(args ...string) e2e.Result { return env.Kubectl(t, args...) }
	f := writeManifest(t, `apiVersion: apps/v1
kind: Deployment
metadata: {name: ss}
spec:
  replicas: 0
  selector: {matchLabels: {app: ss}}
  template:
    metadata: {labels: {app: ss}}
    spec:
      os: {name: linux}
      containers: [{name: app, image: example.com/app:1, lifecycle: {stopSignal: SIGUSR1}}]
`)
	if res := kubectl("apply", "--validate=strict", "-n", ns, "-f", f); res.ExitCode != 0 {
		t.Fatalf("apply: %s", res.Stderr)
	}
	if res := kubectl("get", "deployment", "ss", "-n", ns, "-o", "jsonpath={.spec.template.spec.containers[0].lifecycle.stopSignal}"); res.ExitCode != 0 || res.Stdout != "" {
		t.Errorf("stored stopSignal %q (exit %d, %s): want it dropped", res.Stdout, res.ExitCode, res.Stderr)
	}
	r := auditJSON(t, kubectl, 0, "-f", f, "--kube-version", "1.37", "--fail-on", "error")
	found := false
	for _, fd := range r.Findings {
		found = found || (fd.Check == "stop-signal" && strings.Contains(fd.Message, "without it the API server drops the field"))
	}
	if !found {
		t.Errorf("audit: no stop-signal finding: %v", keys(r))
	}
}
