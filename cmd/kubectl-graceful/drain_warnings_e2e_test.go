package main

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// TestDrainPreflightAuditWarningsNameTheWorkload: through kubectl, the
// three pods of one Deployment whose preStop outlasts their grace period
// give one termination-audit line naming the Deployment and its pods, not
// one line a pod naming none; -o json keeps one warning a pod.
func TestDrainPreflightAuditWarningsNameTheWorkload(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	ns, node := env.Namespace(t), env.Node(t)
	labels := map[string]string{"app": "slowstop"}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "slowstop"}, Spec: appsv1.DeploymentSpec{
		Replicas: ptr.To[int32](3), Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
			NodeName: node, TerminationGracePeriodSeconds: ptr.To[int64](10),
			Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			Containers: []corev1.Container{{Name: "app", Image: "example.com/app:1", Lifecycle: &corev1.Lifecycle{
				PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 30}}}}}}}}}
	ctx := context.Background()
	if _, err := env.Client.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var pods []string
	e2e.WaitFor(t, e2e.SetupWait, "3 pods of slowstop", func() bool {
		l, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=slowstop"})
		pods = nil
		for _, p := range l.Items {
			pods = append(pods, p.Name)
		}
		return err == nil && len(pods) == 3
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
	if n := strings.Count(js.Stdout, `"kind": "termination-audit"`) + strings.Count(js.Stdout, `"kind":"termination-audit"`); n != 3 {
		t.Errorf("-o json has %d termination-audit warnings, want one a pod (3):\n%s", n, js.Stdout)
	}
}
