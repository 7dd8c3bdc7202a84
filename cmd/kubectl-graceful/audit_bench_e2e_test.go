package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// BenchmarkLiveAudit measures `kubectl graceful audit -n NS` against
// `kubectl get deploy,sts,ds,rs,pods,svc,pdb,hpa,ingress -n NS -o json` on
// the local cluster, and reports their ratio (the target: at most 1.5). It
// creates GRACEFUL_BENCH_DEPLOYMENTS Deployments (default 1000) of 5
// replicas each, as many Services and a PDB for every third one, so it is
// opt-in: set GRACEFUL_BENCH_LIVE=1.
func BenchmarkLiveAudit(b *testing.B) {
	if os.Getenv("GRACEFUL_BENCH_LIVE") == "" {
		b.Skip("set GRACEFUL_BENCH_LIVE=1 to create thousands of objects on the local cluster")
	}
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("GRACEFUL_BENCH_DEPLOYMENTS")); err == nil && v > 0 {
		n = v
	}
	env := e2e.Cluster(b)
	ns := env.Namespace(b)
	ctx := context.Background()
	for i := range n {
		name := fmt.Sprintf("app-%d", i)
		lbl := map[string]string{"app": name}
		_, err := env.Client.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](5), Selector: &metav1.LabelSelector{MatchLabels: lbl},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: lbl},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "example/web:1"}}}}},
		}, metav1.CreateOptions{})
		if err != nil {
			b.Fatal(err)
		}
		_, err = env.Client.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: corev1.ServiceSpec{Selector: lbl, Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if i%3 == 0 {
			one := intstr.FromInt32(1)
			_, err = env.Client.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: name},
				Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &one, Selector: &metav1.LabelSelector{MatchLabels: lbl}}}, metav1.CreateOptions{})
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	e2e.WaitFor(b, 15*time.Minute, "all pods created", func() bool {
		pods, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{ResourceVersion: "0"})
		return err == nil && len(pods.Items) >= 5*n
	})
	timeIt := func(args ...string) time.Duration {
		start := time.Now()
		cmd := exec.Command("kubectl", args...)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+env.Kubeconfig, "PATH="+filepath.Dir(e2e.Binary(b))+":"+os.Getenv("PATH"))
		if out, err := cmd.CombinedOutput(); err != nil {
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
				b.Fatalf("kubectl %v: %v\n%s", args, err, out)
			}
		}
		return time.Since(start)
	}
	var audit, get time.Duration
	b.ResetTimer()
	for b.Loop() {
		audit += timeIt("graceful", "audit", "-n", ns, "-o", "json")
		b.StopTimer()
		get += timeIt("get", "deploy,sts,ds,rs,pods,svc,pdb,hpa,ingress", "-n", ns, "-o", "json")
		b.StartTimer()
	}
	b.ReportMetric(float64(audit)/float64(get), "audit/get")
}
