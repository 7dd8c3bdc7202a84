package inspect

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// livePod is a running pod of Deployment deployName (through its
// ReplicaSet deployName-hash) with the template's labels plus extra.
func livePod(deployName, hash string, extra map[string]string) PodLabels {
	l := map[string]string{"app": deployName, "tier": "web", "pod-template-hash": hash}
	for k, v := range extra {
		l[k] = v
	}
	return PodLabels{Namespace: "shop", Labels: l, ControllerKind: "ReplicaSet", ControllerName: deployName + "-" + hash}
}

func role(r string) map[string]string { return map[string]string{"role": r} }

func matchRole(r string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: role(r)}
}

// auditLive audits objs and pods as a live cluster and returns the
// findings of check.
func auditLive(check string, pods []PodLabels, objs ...runtime.Object) []Finding {
	inv := &Inventory{Live: true, Version: Version{1, 37}}
	for _, o := range objs {
		inv.Add(o, nil)
	}
	inv.Pods = append(inv.Pods, pods...)
	var out []Finding
	for _, f := range Audit(inv, DefaultOptions()).Findings {
		if f.Check == check {
			out = append(out, f)
		}
	}
	return out
}

// TestPDBMatchingUsesRunningPodsLabels: an operator labels a database's
// pods role=primary and role=replica at run time; budgets select those
// labels, which the template does not have.
func TestPDBMatchingUsesRunningPodsLabels(t *testing.T) {
	db := deploy("db")
	primary, replicas := pdbWith("db-primary", matchRole("primary"), "1", ""), pdbWith("db-replicas", matchRole("replica"), "", "1")
	labelled := []PodLabels{livePod("db", "7f9", role("primary")), livePod("db", "7f9", role("replica")), livePod("db", "7f9", role("replica"))}

	if got := auditLive("pdb-missing", labelled, db, primary, replicas); len(got) != 0 {
		t.Errorf("every running pod is under a budget: got %+v", got)
	}
	split := auditLive("pdb-split", labelled, db, primary, replicas)
	if len(split) != 1 || !strings.Contains(split[0].Message, "its 3 running pods are under 2 PodDisruptionBudgets by their own labels: db-primary covers 1, db-replicas covers 2") {
		t.Errorf("pods under two budgets: want them named with their counts, got %+v", split)
	}

	partial := []PodLabels{livePod("db", "7f9", role("primary")), livePod("db", "7f9", role("replica")), livePod("db", "7f9", nil)}
	got := auditLive("pdb-missing", partial, db, primary, replicas)
	if len(got) != 1 || !strings.Contains(got[0].Message, "1 of its 3 running pods are under no PodDisruptionBudget (db-primary covers 1, db-replicas covers 1") {
		t.Errorf("one pod under no budget: want it counted, got %+v", got)
	}

	if got := run("pdb-missing", db, primary, replicas); len(got) != 1 || !strings.Contains(got[0].Message, "3 replicas and no PodDisruptionBudget") {
		t.Errorf("files: the template is all there is, want pdb-missing, got %+v", got)
	}

	unlabelled := []PodLabels{livePod("db", "7f9", nil), livePod("db", "7f9", nil)}
	if got := auditLive("pdb-missing", unlabelled, db, primary, replicas); len(got) != 1 || !strings.Contains(got[0].Message, "no PodDisruptionBudget selects any of its 2 running pods") {
		t.Errorf("no running pod labelled: want pdb-missing, got %+v", got)
	}
}

// TestPDBOverlapUsesRunningPodsLabels: a pod two budgets select by its
// run-time labels is refused eviction (500) even though the template
// matches one budget only.
func TestPDBOverlapUsesRunningPodsLabels(t *testing.T) {
	db := deploy("db")
	byApp, mesh := pdbWith("db", matchApp("db"), "", "1"), pdbWith("mesh", &metav1.LabelSelector{MatchLabels: map[string]string{"mesh": "on"}}, "", "1")
	pods := []PodLabels{livePod("db", "7f9", map[string]string{"mesh": "on"}), livePod("db", "7f9", nil)}
	got := auditLive("pdb-overlap", pods, db, byApp, mesh)
	if len(got) != 1 || !strings.Contains(got[0].Message, "1 of its 2 running pods match more than one PodDisruptionBudget (db, mesh)") {
		t.Errorf("want the overlap of the running pods, got %+v", got)
	}
	if got := run("pdb-overlap", db, byApp, mesh); len(got) != 0 {
		t.Errorf("files: the template matches one budget, got %+v", got)
	}
}

// TestPodsOfDeploymentsWithSharedPrefixes: the pods of Deployment web-api
// (ReplicaSet web-api-5d8) are not web's, though their ReplicaSet's name
// starts with "web-".
func TestPodsOfDeploymentsWithSharedPrefixes(t *testing.T) {
	web, webAPI := deploy("web"), deploy("web-api")
	budget := pdbWith("web-api", matchApp("web-api"), "", "1")
	pods := []PodLabels{livePod("web-api", "5d8", nil), livePod("web-api", "5d8", nil)}
	got := auditLive("pdb-missing", pods, web, webAPI, budget)
	if len(got) != 1 || got[0].Object.Name != "web" || !strings.Contains(got[0].Message, "3 replicas and no PodDisruptionBudget") {
		t.Errorf("want pdb-missing for web only (no running pods: its template), got %+v", got)
	}
}
