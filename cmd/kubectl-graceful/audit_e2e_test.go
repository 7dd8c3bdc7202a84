package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// auditJSON runs `kubectl graceful audit ARGS -o json` through the real
// kubectl and decodes the report; wantExit is the expected exit status.
func auditJSON(t *testing.T, run func(args ...string) e2e.Result, wantExit int, args ...string) *inspect.Report {
	t.Helper()
	res := run(append([]string{"graceful", "audit", "-o", "json"}, args...)...)
	if res.ExitCode != wantExit {
		t.Fatalf("kubectl graceful audit %s: exit %d, want %d\nstderr: %s\nstdout: %s", strings.Join(args, " "), res.ExitCode, wantExit, res.Stderr, res.Stdout)
	}
	var r inspect.Report
	if err := json.Unmarshal([]byte(res.Stdout), &r); err != nil {
		t.Fatalf("audit output is not the JSON report: %v\n%s", err, res.Stdout)
	}
	return &r
}

// keys returns "severity check object container" for every finding except
// live-only checks, sorted, to compare live and manifest audits.
func keys(r *inspect.Report) []string {
	var out []string
	for _, f := range r.Findings {
		if c := inspect.Lookup(f.Check); c != nil && c.LiveOnly {
			continue
		}
		out = append(out, fmt.Sprintf("%s %s %s/%s/%s %s", f.Severity, f.Check, f.Object.Namespace, f.Object.Kind, f.Object.Name, f.Container))
	}
	sort.Strings(out)
	return out
}

func has(r *inspect.Report, check, kind, name string) bool {
	for _, f := range r.Findings {
		if f.Check == check && f.Object.Kind == kind && f.Object.Name == name {
			return true
		}
	}
	return false
}

// waitForPods waits until every Deployment and StatefulSet in ns has
// created its pods, so that live PDB matching sees them.
func waitForPods(t *testing.T, env *e2e.Env, ns string) {
	t.Helper()
	ctx := context.Background()
	e2e.WaitFor(t, 90*time.Second, "workload pods in "+ns, func() bool {
		deps, err := env.Client.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false
		}
		for _, d := range deps.Items {
			if d.Spec.Replicas != nil && d.Status.Replicas < *d.Spec.Replicas {
				return false
			}
		}
		sts, err := env.Client.AppsV1().StatefulSets(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false
		}
		for _, s := range sts.Items {
			if s.Spec.Replicas != nil && s.Status.Replicas < *s.Spec.Replicas {
				return false
			}
		}
		return true
	})
}

// TestAuditLiveMatchesManifests applies testdata/audit to a fresh namespace
// and audits it live and from the files: the same findings for the same
// objects, plus the live-only PDB status check.
func TestAuditLiveMatchesManifests(t *testing.T) {
	env := e2e.Cluster(t)
	ns := env.Namespace(t)
	kubectl := func(args ...string) e2e.Result { return env.Kubectl(t, args...) }
	if res := kubectl("apply", "-n", ns, "-f", "testdata/audit"); res.ExitCode != 0 {
		t.Fatalf("apply: %s", res.Stderr)
	}
	waitForPods(t, env, ns)
	e2e.WaitFor(t, time.Minute, "the disruption controller to compute the locked PDB's status", func() bool {
		p, err := env.Client.PolicyV1().PodDisruptionBudgets(ns).Get(context.Background(), "locked", metav1.GetOptions{})
		return err == nil && p.Status.ObservedGeneration == p.Generation && p.Status.ExpectedPods > 0
	})

	live := auditJSON(t, kubectl, 2, "-n", ns)
	files := auditJSON(t, kubectl, 2, "-n", ns, "-f", "testdata/audit")
	// A live audit also reads the drainers' caps the whole cluster shows
	// (a cluster-autoscaler's Deployment in any namespace): other
	// packages' tests create such drainers on the same cluster at the
	// same time, so the finding those caps make is left out here (its own
	// test, TestAuditLiveDrainerCapOfClusterAutoscaler, runs alone).
	if l, f := strings.Join(withoutCheck(keys(live), "shutdown-exceeds-drainer-cap"), "\n"), strings.Join(keys(files), "\n"); l != f {
		t.Errorf("live and manifest audits differ\nlive:\n%s\n\nmanifests:\n%s", l, f)
	}
	for _, want := range []struct{ check, kind, name string }{
		{"missing-prestop", "Deployment", "naive"},
		{"missing-readiness-probe", "Deployment", "naive"},
		{"prestop-exceeds-grace", "Deployment", "slow"},
		{"prestop-sleep-binary-missing", "Deployment", "slow"},
		{"readiness-probe-port-unknown", "Deployment", "slow"},
		{"rollout-downtime", "Deployment", "slow"},
		{"lb-deregistration-exceeds-grace", "Deployment", "slow"},
		{"grace-period-zero", "Deployment", "locked"},
		{"pdb-blocks-eviction", "PodDisruptionBudget", "locked"},
		{"pdb-blocks-eviction", "PodDisruptionBudget", "backend"},
		{"pdb-overlap", "Deployment", "locked"},
		{"pdb-selects-nothing", "PodDisruptionBudget", "orphan"},
		{"grace-period-long", "Pod", "bare"},
	} {
		if !has(files, want.check, want.kind, want.name) {
			t.Errorf("manifest audit lacks %s on %s/%s", want.check, want.kind, want.name)
		}
	}
	for _, f := range files.Findings {
		if f.Object.Name == "hardened" && f.Severity != inspect.SeverityInfo {
			t.Errorf("hardened example has a %s finding: %+v", f.Severity, f)
		}
		if f.Source == nil || f.Source.Line == 0 || !strings.HasPrefix(f.Source.File, "testdata/audit/") {
			t.Errorf("manifest finding without file and line: %+v", f)
		}
	}
	// Clients of db resolve its headless Service in DNS and dial port 5432
	// on pod IPs; DNS lists only ready pods and drops terminating ones, so
	// the endpoint race applies as for any Service.
	if !has(files, "missing-prestop", "StatefulSet", "db") {
		t.Errorf("a StatefulSet behind a headless Service with a client port is behind a Service: %v", keys(files))
	}
	// The live audit reads real PDB status: minAvailable 2 with 1 pod.
	if !has(live, "pdb-no-disruptions-now", "PodDisruptionBudget", "locked") {
		t.Errorf("live audit lacks pdb-no-disruptions-now on the locked PDB: %v", keys(live))
	}
	// Owned ReplicaSets and pods are reported through their Deployment.
	for _, f := range live.Findings {
		if f.Object.Kind == "ReplicaSet" || (f.Object.Kind == "Pod" && f.Object.Name != "bare") {
			t.Errorf("owned object reported on its own: %+v", f)
		}
	}
	// A resource argument narrows the live audit to one workload.
	one := auditJSON(t, kubectl, 0, "-n", ns, "deployment/hardened")
	if one.Summary.Workloads != 1 {
		t.Errorf("deployment/hardened: %d workloads audited", one.Summary.Workloads)
	}
	sel := auditJSON(t, kubectl, 0, "-n", ns, "-l", "app=hardened")
	if sel.Summary.Workloads != 1 {
		t.Errorf("-l app=hardened: %d workloads audited", sel.Summary.Workloads)
	}
}

// TestAuditManifestsWithoutKubeconfig: -f needs no cluster and no
// kubeconfig at all.
func TestAuditManifestsWithoutKubeconfig(t *testing.T) {
	home := t.TempDir()
	run := func(args ...string) e2e.Result {
		return e2e.RunKubectl(t, []string{"KUBECONFIG=", "HOME=" + home}, args...)
	}
	r := auditJSON(t, run, 2, "-f", "testdata/audit")
	if r.Summary.Workloads != 6 || r.Summary.Errors == 0 {
		t.Errorf("summary = %+v", r.Summary)
	}
	r = auditJSON(t, run, 0, "-f", "testdata/audit", "--fail-on", "none")
	if len(r.Findings) == 0 {
		t.Errorf("--fail-on none must still report findings")
	}
	// SARIF for code-scanning UIs: every result points at its file and line.
	res := run("graceful", "audit", "-f", "testdata/audit", "-o", "sarif")
	var log struct {
		Version string
		Runs    []struct {
			Results []struct {
				RuleID    string
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(res.Stdout), &log); err != nil || res.ExitCode != 2 || log.Version != "2.1.0" {
		t.Fatalf("-o sarif: exit %d, %v\n%s", res.ExitCode, err, res.Stderr)
	}
	if len(log.Runs[0].Results) != len(r.Findings) {
		t.Errorf("%d SARIF results for %d findings", len(log.Runs[0].Results), len(r.Findings))
	}
	for _, result := range log.Runs[0].Results {
		loc := result.Locations[0].PhysicalLocation
		if !strings.HasPrefix(loc.ArtifactLocation.URI, "testdata/audit/") || loc.Region.StartLine < 1 {
			t.Errorf("%s: location %+v", result.RuleID, loc)
		}
	}
}

// TestAuditRestrictedUser: a user who may not list PDBs gets the PDB checks
// listed as skipped, with the API server's reason, and the rest still runs.
func TestAuditRestrictedUser(t *testing.T) {
	env := e2e.Cluster(t)
	ns := env.Namespace(t)
	kubectl := func(args ...string) e2e.Result { return env.Kubectl(t, args...) }
	for _, args := range [][]string{
		{"create", "serviceaccount", "auditor", "-n", ns},
		{"create", "role", "auditor", "-n", ns, "--verb=get,list",
			"--resource=deployments.apps,statefulsets.apps,daemonsets.apps,replicasets.apps,jobs.batch,cronjobs.batch,pods,services,horizontalpodautoscalers.autoscaling,ingresses.networking.k8s.io"},
		{"create", "rolebinding", "auditor", "-n", ns, "--role=auditor", "--serviceaccount=" + ns + ":auditor"},
		{"apply", "-n", ns, "-f", "testdata/audit/workloads.yaml"},
	} {
		if res := kubectl(args...); res.ExitCode != 0 {
			t.Fatalf("kubectl %s: %s", strings.Join(args, " "), res.Stderr)
		}
	}
	r := auditJSON(t, kubectl, 2, "-n", ns, "--as", "system:serviceaccount:"+ns+":auditor")
	skipped := map[string]string{}
	for _, s := range r.Skipped {
		skipped[s.Check] = s.Message
	}
	for _, id := range []string{"pdb-missing", "pdb-blocks-eviction", "pdb-overlap", "pdb-selects-nothing", "pdb-no-disruptions-now", "pdb-unhealthy-eviction-policy"} {
		if !strings.Contains(skipped[id], "forbidden") || !strings.Contains(skipped[id], "poddisruptionbudgets") {
			t.Errorf("%s: skipped reason %q, want the API server's forbidden message", id, skipped[id])
		}
	}
	if !has(r, "missing-prestop", "Deployment", "naive") {
		t.Errorf("checks not needing PDBs must still run: %v", keys(r))
	}
	res := kubectl("graceful", "audit", "-n", ns, "--as", "system:serviceaccount:"+ns+":auditor")
	if !strings.Contains(res.Stdout, "skipped pdb-missing: cannot read poddisruptionbudgets.policy: forbidden") {
		t.Errorf("table output does not say why pdb-missing was skipped:\n%s", res.Stdout)
	}
}

// TestAuditBadInput: one line naming the file or context, exit 1.
func TestAuditBadInput(t *testing.T) {
	env := e2e.Cluster(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: v1\nkind: Service\nmetadata: {name: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	unknown := filepath.Join(dir, "unknown.yaml")
	if err := os.WriteFile(unknown, []byte("apiVersion: apps/v1\nkind: Deploymnet\nmetadata: {name: x}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"YAML that does not parse", []string{"-f", bad}, "bad.yaml"},
		{"unknown kind", []string{"-f", unknown}, `unknown.yaml: unknown kind "Deploymnet"`},
		{"missing file", []string{"-f", filepath.Join(dir, "nope.yaml")}, "nope.yaml"},
		{"unknown context", []string{"--context", "nope"}, "nope"},
		{"unreachable cluster", []string{"--server", "https://127.0.0.1:1", "--insecure-skip-tls-verify"}, "cannot reach the cluster"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := env.Kubectl(t, append([]string{"graceful", "audit"}, tc.args...)...)
			lines := strings.Split(strings.TrimSpace(res.Stderr), "\n")
			if res.ExitCode != 1 || len(lines) != 1 || !strings.HasPrefix(lines[0], "error: ") || !strings.Contains(lines[0], tc.want) {
				t.Errorf("exit %d, stderr %q: want exit 1 and one line with %q", res.ExitCode, res.Stderr, tc.want)
			}
		})
	}
}

// withoutCheck drops the keys (as keys makes them) of check.
func withoutCheck(keys []string, check string) []string {
	var out []string
	for _, k := range keys {
		if !strings.Contains(k, " "+check+" ") {
			out = append(out, k)
		}
	}
	return out
}
