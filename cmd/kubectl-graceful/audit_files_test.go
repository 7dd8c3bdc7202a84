package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-graceful/kubectl-graceful/internal/cliutil"
)

// runCLI runs `kubectl graceful ARGS` in process, the way main does, with
// no kubeconfig unless the test sets KUBECONFIG.
func runCLI(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	if _, set := os.LookupEnv("KUBECONFIG"); !set {
		t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	}
	var out, errOut bytes.Buffer
	root := newCmdRoot(genericiooptions.IOStreams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut}, nil)
	root.SetArgs(args)
	err := root.Execute()
	if msg := cliutil.Message(err); msg != "" {
		errOut.WriteString(msg + "\n")
	}
	return out.String(), errOut.String(), cliutil.CodeOf(err)
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const legacyWeb = `apiVersion: extensions/v1beta1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  template:
    metadata:
      labels: {app: web}
    spec:
      terminationGracePeriodSeconds: 0
      containers:
      - name: app
        image: nginx
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports: [{port: 80}]
`

// An extensions/v1beta1 Deployment with grace 0 behind a Service was read
// as 0 workloads (exit 0); it is audited with every check, plus the
// removal.
func TestAuditReadsRemovedWorkloadVersions(t *testing.T) {
	f := writeFile(t, t.TempDir(), "legacy.yaml", legacyWeb)
	out, errOut, code := runCLI(t, "", "audit", "-f", f, "-o", "json")
	if code != cliutil.ExitRisk {
		t.Fatalf("exit %d, want 2; stderr %s", code, errOut)
	}
	for _, want := range []string{`"check": "grace-period-zero"`, `"check": "removed-api-version"`,
		"apiVersion extensions/v1beta1 Deployment was removed in Kubernetes 1.16", `"workloads": 1`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
}

func TestAuditRemovedVersionsByTargetRelease(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "all.yaml", `apiVersion: apps/v1beta1
kind: StatefulSet
metadata: {name: db}
spec:
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: postgres}]}
---
apiVersion: apps/v1beta2
kind: DaemonSet
metadata: {name: agent}
spec:
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: a, image: agent}]}
---
apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata: {name: db}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: db}}
`)
	count := func(version string) (workloads, pdbs int, out string) {
		out, errOut, code := runCLI(t, "", "audit", "-f", dir, "--kube-version", version, "--fail-on", "none", "-o", "json")
		if code != 0 {
			t.Fatalf("--kube-version %s: exit %d: %s", version, code, errOut)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "was removed in Kubernetes 1.16") {
				workloads++
			}
			if strings.Contains(l, "policy/v1beta1 PodDisruptionBudget was removed in Kubernetes 1.25") {
				pdbs++
			}
		}
		return workloads, pdbs, out
	}
	for _, tc := range []struct {
		version         string
		workloads, pdbs int
	}{{"1.15", 0, 0}, {"1.16", 2, 0}, {"1.25", 2, 1}, {"1.37", 2, 1}} {
		if w, p, out := count(tc.version); w != tc.workloads || p != tc.pdbs {
			t.Errorf("--kube-version %s: %d workload and %d PDB removals, want %d and %d:\n%s", tc.version, w, p, tc.workloads, tc.pdbs, out)
		}
	}
}

// Custom resources with a pod template are audited as generic workloads,
// others are counted in the summary with the reason.
func TestAuditGenericWorkloadsAndNotAudited(t *testing.T) {
	f := writeFile(t, t.TempDir(), "crs.yaml", `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: shop, namespace: prod}
spec:
  replicas: 3
  template:
    metadata: {labels: {app: shop}}
    spec:
      terminationGracePeriodSeconds: 0
      containers: [{name: app, image: shop}]
---
apiVersion: monitoring.coreos.com/v1
kind: Prometheus
metadata: {name: k8s, namespace: prod}
spec: {replicas: 2}
`)
	out, errOut, code := runCLI(t, "", "audit", "-f", f)
	if code != cliutil.ExitRisk {
		t.Fatalf("exit %d, want 2: %s", code, errOut)
	}
	for _, want := range []string{"prod/Rollout/shop", "grace-period-zero", "pdb-missing",
		"note: Rollout prod/shop (argoproj.io/v1alpha1) is not a kind the audit reads: audited as a generic workload through spec.template and spec.replicas (3)",
		"in 1 workload of 2 objects", "1 generic workloads", "1 not audited: custom resources without a pod template"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func writeKubeconfig(t *testing.T, namespace string) string {
	t.Helper()
	return writeFile(t, t.TempDir(), "config", `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: ctx, context: {cluster: c, user: u, namespace: `+namespace+`}}]
current-context: ctx
`)
}

// Objects without a namespace take -n, else the kubeconfig context's
// namespace, else "default", as kubectl apply places them; no cluster is
// contacted.
func TestAuditNamespaceOfObjectsWithout(t *testing.T) {
	f := writeFile(t, t.TempDir(), "web.yaml", legacyWeb)
	for _, tc := range []struct {
		kubeconfig string
		args       []string
		want       string
	}{
		{"", nil, "default/Deployment/web"},
		{writeKubeconfig(t, "shop"), nil, "shop/Deployment/web"},
		{writeKubeconfig(t, "shop"), []string{"-n", "prod"}, "prod/Deployment/web"},
	} {
		if tc.kubeconfig != "" {
			t.Setenv("KUBECONFIG", tc.kubeconfig)
		} else {
			t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "missing"))
		}
		out, errOut, _ := runCLI(t, "", append([]string{"audit", "-f", f}, tc.args...)...)
		if !strings.Contains(out, tc.want) {
			t.Errorf("kubeconfig %q %v: want %s in:\n%s%s", tc.kubeconfig, tc.args, tc.want, out, errOut)
		}
	}
}

// A PDB and the workload it protects end up in different namespaces only
// because one manifest has none: both findings say so.
func TestAuditNamespaceMismatchIsExplained(t *testing.T) {
	f := writeFile(t, t.TempDir(), "app.yaml", `apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: prod}
spec:
  replicas: 3
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec: {containers: [{name: api, image: api}]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: api}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: api}}
`)
	out, errOut, _ := runCLI(t, "", "audit", "-f", f, "-n", "staging", "-o", "json")
	for _, want := range []string{
		"PodDisruptionBudget api (namespace staging) selects these pods but is in another namespace only because the PodDisruptionBudget's manifest has no namespace",
		"it would select prod/Deployment/api, in another namespace only because the PodDisruptionBudget's manifest has no namespace",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s%s", want, out, errOut)
		}
	}
}
