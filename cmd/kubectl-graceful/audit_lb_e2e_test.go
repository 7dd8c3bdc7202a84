package main

import (
	"strings"
	"testing"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// TestAuditTargetGroupBindingLive: where the cluster serves
// TargetGroupBindings (the AWS Load Balancer Controller's CRD), a live
// audit reads them as a manifest audit does; a user who may not list them
// gets the load balancer check skipped with the API server's reason, and
// the other checks still run. Clusters without the CRD are every other
// e2e test.
func TestAuditTargetGroupBindingLive(t *testing.T) {
	env := e2e.Cluster(t)
	kubectl := func(args ...string) e2e.Result { return env.Kubectl(t, args...) }
	if res := kubectl("apply", "-f", "testdata/lb/crd.yaml"); res.ExitCode != 0 {
		t.Fatalf("apply CRD: %s", res.Stderr)
	}
	t.Cleanup(func() { kubectl("delete", "-f", "testdata/lb/crd.yaml", "--wait=false") })
	if res := kubectl("wait", "--for=condition=Established", "--timeout=60s", "crd/targetgroupbindings.elbv2.k8s.aws"); res.ExitCode != 0 {
		t.Fatalf("CRD not established: %s", res.Stderr)
	}
	ns := env.Namespace(t)
	e2e.WaitFor(t, time.Minute, "the TargetGroupBinding kind to be served", func() bool {
		return kubectl("apply", "-n", ns, "-f", "testdata/lb/web.yaml").ExitCode == 0
	})
	const wantMsg = "TargetGroupBinding web-tg (set outside the cluster; AWS default assumed) deregistration delay is 300 s but the grace period is 30 s"
	for name, args := range map[string][]string{
		"live":      {"-n", ns, "--fail-on", "none"},
		"manifests": {"-n", ns, "-f", "testdata/lb/web.yaml", "--fail-on", "none"},
	} {
		r := auditJSON(t, kubectl, 0, args...)
		found := false
		for _, f := range r.Findings {
			found = found || (f.Check == "lb-deregistration-exceeds-grace" && f.Object.Name == "web" && strings.Contains(f.Message, wantMsg))
		}
		if !found {
			t.Errorf("%s audit lacks %q: %v", name, wantMsg, keys(r))
		}
	}

	r := auditJSON(t, kubectl, 0, "-n", ns, "--fail-on", "none", "--as", namespacedAuditor(t, kubectl, ns))
	reason := ""
	for _, s := range r.Skipped {
		if s.Check == "lb-deregistration-exceeds-grace" {
			reason = s.Message
		}
	}
	if !strings.Contains(reason, "targetgroupbindings.elbv2.k8s.aws") || !strings.Contains(reason, "forbidden") {
		t.Errorf("lb-deregistration-exceeds-grace skipped with %q, want the API server's forbidden message", reason)
	}
	if !has(r, "pdb-missing", "Deployment", "web") {
		t.Errorf("checks not needing TargetGroupBindings must still run: %v", keys(r))
	}
}

// namespacedAuditor creates a service account that may read in ns what a
// namespaced audit reads, and nothing cluster-scoped nor of custom
// resources, and returns the user to pass to --as.
func namespacedAuditor(t *testing.T, kubectl func(args ...string) e2e.Result, ns string) string {
	t.Helper()
	for _, args := range [][]string{
		{"create", "serviceaccount", "auditor", "-n", ns},
		{"create", "role", "auditor", "-n", ns, "--verb=get,list",
			"--resource=deployments.apps,statefulsets.apps,daemonsets.apps,replicasets.apps,jobs.batch,cronjobs.batch,pods,services,poddisruptionbudgets.policy,horizontalpodautoscalers.autoscaling,ingresses.networking.k8s.io"},
		{"create", "rolebinding", "auditor", "-n", ns, "--role=auditor", "--serviceaccount=" + ns + ":auditor"},
	} {
		if res := kubectl(args...); res.ExitCode != 0 {
			t.Fatalf("kubectl %s: %s", strings.Join(args, " "), res.Stderr)
		}
	}
	return "system:serviceaccount:" + ns + ":auditor"
}
