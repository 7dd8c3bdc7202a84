package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// operatorDB is a Deployment of 3 pods on one kwok node and two budgets
// selecting labels an operator sets on running pods (role), which the pod
// template does not have.
const operatorDB = `apiVersion: apps/v1
kind: Deployment
metadata: {name: db}
spec:
  replicas: 3
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      nodeSelector: {e2e.graceful.test/node: %[1]s}
      tolerations: [{key: e2e.graceful.test/node, operator: Exists, effect: NoSchedule}]
      containers: [{name: db, image: example/db:1}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: db-primary}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: db, role: primary}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: db-replicas}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: db, role: replica}}
`

// TestAuditLiveBudgetsByRunningPodsLabels: pods labelled at run time are
// matched by the budgets selecting those labels. All labelled: no
// pdb-missing, and the split across budgets named with counts; one pod
// left unlabelled: pdb-missing says how many pods no budget covers. The
// same objects from files (the template only) get pdb-missing, as before.
func TestAuditLiveBudgetsByRunningPodsLabels(t *testing.T) {
	env := e2e.Cluster(t)
	ns := env.Namespace(t)
	node := env.Node(t)
	kubectl := func(args ...string) e2e.Result { return env.Kubectl(t, args...) }
	file := writeFile(t, t.TempDir(), "db.yaml", fmt.Sprintf(operatorDB, node))
	if res := kubectl("apply", "-n", ns, "-f", file); res.ExitCode != 0 {
		t.Fatalf("apply: %s", res.Stderr)
	}
	pods := runningPods(t, env, ns, "app=db", 3)
	label := func(pod, role string) {
		patch := fmt.Sprintf(`{"metadata":{"labels":{"role":%q}}}`, role)
		if _, err := env.Client.CoreV1().Pods(ns).Patch(context.Background(), pod, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatalf("label %s: %v", pod, err)
		}
	}
	label(pods[0], "primary")
	label(pods[1], "replica")

	r := auditJSON(t, kubectl, 0, "-n", ns, "--fail-on", "none")
	f := findingOf(r, "pdb-missing", "db")
	if f == nil || !strings.Contains(f.Message, "1 of its 3 running pods are under no PodDisruptionBudget (db-primary covers 1, db-replicas covers 1, by the pods' own labels)") {
		t.Errorf("one pod unlabelled: want pdb-missing counting it, got %+v", f)
	}

	label(pods[2], "replica")
	r = auditJSON(t, kubectl, 0, "-n", ns, "--fail-on", "none")
	if f := findingOf(r, "pdb-missing", "db"); f != nil {
		t.Errorf("every running pod is under a budget: got %+v", f)
	}
	f = findingOf(r, "pdb-split", "db")
	if f == nil || !strings.Contains(f.Message, "its 3 running pods are under 2 PodDisruptionBudgets by their own labels: db-primary covers 1, db-replicas covers 2") {
		t.Errorf("want the budgets named with the pods each covers, got %+v", f)
	}

	files := auditJSON(t, kubectl, 0, "-n", ns, "-f", file, "--fail-on", "none")
	if f := findingOf(files, "pdb-missing", "db"); f == nil {
		t.Errorf("from files the template is all there is: want pdb-missing, got %+v", files.Findings)
	}
}

// runningPods waits until n pods matching selector are Running and
// returns their names.
func runningPods(t *testing.T, env *e2e.Env, ns, selector string, n int) []string {
	t.Helper()
	var names []string
	e2e.WaitFor(t, 90*time.Second, fmt.Sprintf("%d running pods %s in %s", n, selector, ns), func() bool {
		l, err := env.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return false
		}
		names = names[:0]
		for _, p := range l.Items {
			if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
				names = append(names, p.Name)
			}
		}
		return len(names) == n
	})
	return names
}

// findingOf returns the finding of check about the workload or budget
// named name, or nil.
func findingOf(r *inspect.Report, check, name string) *inspect.Finding {
	for i, f := range r.Findings {
		if f.Check == check && f.Object.Name == name {
			return &r.Findings[i]
		}
	}
	return nil
}
