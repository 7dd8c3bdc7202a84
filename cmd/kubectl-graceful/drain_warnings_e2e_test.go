package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// deployOn creates Deployment app of replicas pods on node only (its
// label and taint), spec changed by edit, and waits until want(pods).
func deployOn(t *testing.T, env *e2e.Env, ns, node, app string, replicas int32, edit func(*corev1.PodSpec), want func([]corev1.Pod) bool) {
	t.Helper()
	labels := map[string]string{"app": app}
	spec := corev1.PodSpec{NodeSelector: map[string]string{e2e.NodeTaintKey: node}, Tolerations: []corev1.Toleration{e2e.NodeToleration},
		Containers: []corev1.Container{{Name: "app", Image: "example.com/app:1"}}}
	edit(&spec)
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: app}, Spec: appsv1.DeploymentSpec{
		Replicas: ptr.To(replicas), Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec}}}
	ctx := context.Background()
	if _, err := env.Client.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e2e.WaitFor(t, e2e.SetupWait, "the pods of "+app, func() bool {
		l, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=" + app})
		return err == nil && want(l.Items)
	})
}

// podsReady is a want of deployOn: n pods, those not terminating Ready.
func podsReady(n int) func([]corev1.Pod) bool {
	return func(pods []corev1.Pod) bool {
		for _, p := range pods {
			ready := false
			for _, c := range p.Status.Conditions {
				ready = ready || c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue
			}
			if !ready && p.DeletionTimestamp == nil {
				return false
			}
		}
		return len(pods) == n
	}
}

// TestDrainPreflightAuditWarningsNameTheWorkload: through kubectl, the
// three pods of one Deployment whose preStop outlasts their grace period
// give one termination-audit line naming the Deployment and its pods, not
// one line a pod naming none; -o json keeps one warning a pod.
func TestDrainPreflightAuditWarningsNameTheWorkload(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	ns, node := env.Namespace(t), env.Node(t)
	var pods []string
	deployOn(t, env, ns, node, "slowstop", 3, func(s *corev1.PodSpec) {
		s.TerminationGracePeriodSeconds = ptr.To[int64](10)
		s.Containers[0].Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sleep", "30"}}}}
	}, func(l []corev1.Pod) bool {
		pods = nil
		for _, p := range l {
			pods = append(pods, p.Name)
		}
		return len(pods) == 3
	})
	res := env.Kubectl(t, "graceful", "drain", "node", node, "--ignore-daemonsets", "--dry-run=client")
	var lines []string
	for _, l := range strings.Split(res.Stdout, "\n") {
		if strings.Contains(l, "[termination-audit]") {
			lines = append(lines, l)
		}
	}
	if res.ExitCode != 0 || len(lines) != 1 || !strings.Contains(lines[0], ns+"/Deployment/slowstop (pods ") {
		t.Fatalf("exit %d, termination-audit lines %q: want exit 0 and one line naming %s/Deployment/slowstop and its pods:\n%s\n%s",
			res.ExitCode, lines, ns, res.Stdout, res.Stderr)
	}
	for _, p := range pods {
		if strings.Count(lines[0], p) != 1 {
			t.Errorf("line %q does not name pod %s once", lines[0], p)
		}
	}
	js := env.Kubectl(t, "graceful", "drain", "node", node, "--ignore-daemonsets", "--dry-run=client", "-o", "json")
	var doc struct {
		Nodes []struct {
			Preflight struct{ Warnings []struct{ Kind string } }
		}
	}
	if err := json.Unmarshal([]byte(js.Stdout), &doc); err != nil || len(doc.Nodes) != 1 {
		t.Fatalf("-o json: %v, %d nodes:\n%s", err, len(doc.Nodes), js.Stdout)
	}
	n := 0
	for _, w := range doc.Nodes[0].Preflight.Warnings {
		if w.Kind == "termination-audit" {
			n++
		}
	}
	if n != 3 {
		t.Errorf("-o json: the node's preflight has %d termination-audit warnings, want one a pod (3):\n%s", n, js.Stdout)
	}
}

// TestDrainPreflightBudgetOfAllWhileAPodTerminates: a budget of
// minAvailable 3 over a Deployment of 3, one pod held terminating by a
// finalizer: the disruption controller's expectedPods counts it and its
// replacement (4), but at most 3 pods can be healthy, so the preflight
// says the budget allows none by its spec (pdb-allows-none), not that a
// node elsewhere would help (pdb-no-room-elsewhere).
func TestDrainPreflightBudgetOfAllWhileAPodTerminates(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	ns, node := env.Namespace(t), env.Node(t)
	ctx := context.Background()
	deployOn(t, env, ns, node, "all", 3, func(*corev1.PodSpec) {}, podsReady(3))
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "all"}, Spec: policyv1.PodDisruptionBudgetSpec{
		MinAvailable: ptr.To(intstr.FromInt32(3)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "all"}}}}
	if _, err := env.Client.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	l, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=all"})
	if err != nil || len(l.Items) != 3 {
		t.Fatalf("pods: %v", err)
	}
	held := l.Items[0].Name
	hold := []byte(`{"metadata":{"finalizers":["example.com/hold"]}}`)
	if _, err := env.Client.CoreV1().Pods(ns).Patch(ctx, held, types.MergePatchType, hold, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = env.Client.CoreV1().Pods(ns).Patch(context.Background(), held, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
	})
	if err := env.Client.CoreV1().Pods(ns).Delete(ctx, held, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
		t.Fatal(err)
	}
	e2e.WaitFor(t, e2e.SetupWait, "the held pod and its Ready replacement", func() bool {
		l, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=all"})
		return err == nil && podsReady(4)(l.Items)
	})
	e2e.WaitFor(t, e2e.SetupWait, "the budget's expectedPods 4, currentHealthy 3", func() bool {
		got, err := env.Client.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "all", metav1.GetOptions{})
		return err == nil && got.Status.ExpectedPods == 4 && got.Status.CurrentHealthy == 3 && got.Status.ObservedGeneration == got.Generation
	})
	time.Sleep(time.Second) // the blocker must not depend on a status caught mid-update
	res := env.Kubectl(t, "graceful", "drain", "node", node, "--ignore-daemonsets", "--dry-run=client")
	if !strings.Contains(res.Stdout, "[pdb-allows-none]") || !strings.Contains(res.Stdout, "minAvailable: 3 with 3 pod(s) selected that are not terminating") ||
		strings.Contains(res.Stdout, "pdb-no-room-elsewhere") {
		t.Fatalf("exit %d: want pdb-allows-none from minAvailable 3 and the 3 pods that can be healthy, not pdb-no-room-elsewhere:\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
}
