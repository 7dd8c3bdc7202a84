package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// TestAuditIngressControllerLive: a live audit reads the cluster's
// IngressClasses, finds the controller that serves a workload's Ingress
// and judges its preStop against that controller's time where it is
// longer than the floor, saying so in the finding and in a note; a
// manifest audit does the same from an IngressClass in the files. A user
// who may not list IngressClasses is told the controller is unknown.
func TestAuditIngressControllerLive(t *testing.T) {
	env := e2e.Cluster(t)
	kubectl := func(args ...string) e2e.Result { return env.Kubectl(t, args...) }
	if res := kubectl("apply", "-f", "testdata/ingress/class.yaml"); res.ExitCode != 0 {
		t.Fatalf("apply IngressClass: %s", res.Stderr)
	}
	t.Cleanup(func() { kubectl("delete", "-f", "testdata/ingress/class.yaml", "--wait=false") })
	ns := env.Namespace(t)
	if res := kubectl("apply", "-n", ns, "-f", "testdata/ingress/web.yaml"); res.ExitCode != 0 {
		t.Fatalf("apply: %s", res.Stderr)
	}
	const wantMsg = "preStop sleeps 5 s, below 10 s: Ingress front (class graceful-e2e-istio) is served by Istio ingress gateway"
	const wantNote = "IngressClass graceful-e2e-istio is served by Istio ingress gateway: it may send a pod new requests up to 10 s"
	for name, args := range map[string][]string{
		"live":      {"-n", ns, "--fail-on", "none"},
		"manifests": {"-n", ns, "-f", "testdata/ingress/class.yaml", "-f", "testdata/ingress/web.yaml", "--fail-on", "none"},
	} {
		r := auditJSON(t, kubectl, 0, args...)
		if f := findingOf(r, "prestop-too-short", "web"); f == nil || !strings.Contains(f.Message, wantMsg) || f.PreStopSeconds != 10 {
			t.Errorf("%s audit: prestop-too-short on web is %+v, want %q and preStopSeconds 10", name, f, wantMsg)
		}
		if !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, wantNote) }) {
			t.Errorf("%s audit: notes %q lack %q", name, r.Notes, wantNote)
		}
	}

	r := auditJSON(t, kubectl, 0, "-n", ns, "--fail-on", "none", "--as", namespacedAuditor(t, kubectl, ns))
	if f := findingOf(r, "prestop-too-short", "web"); f != nil {
		t.Errorf("without IngressClasses the 5 s preStop met the 5 s floor, yet: %+v", f)
	}
	if !slices.ContainsFunc(r.Notes, func(n string) bool {
		return strings.HasPrefix(n, "IngressClasses could not be read (") && strings.Contains(n, "forbidden")
	}) {
		t.Errorf("notes %q do not say the IngressClasses could not be read", r.Notes)
	}
}
