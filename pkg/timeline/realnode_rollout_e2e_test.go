package timeline_test

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/internal/realnode"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/probe"
)

// realDeployment creates Deployment web of replicas test-app pods on the
// real node and Service web, waits for them, and returns the ClusterIP.
func realDeployment(t *testing.T, env *e2e.Env, ns string, replicas int32, o realnode.PodOpts) string {
	t.Helper()
	waitDefaultServiceAccount(t, env, ns)
	labels := map[string]string{"app": "web"}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: appsv1.DeploymentSpec{
		Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: realnode.PodSpec(o)},
	}}
	if _, err := env.Client.AppsV1().Deployments(ns).Create(context.Background(), d, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating deployment: %v", err)
	}
	pods := waitReadyPods(t, env, ns, int(replicas))
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.ServiceSpec{Selector: labels,
		Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}}}
	created, err := env.Client.CoreV1().Services(ns).Create(context.Background(), svc, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating service: %v", err)
	}
	for i := range pods {
		waitEndpointReady(t, env, ns, "web", &pods[i])
	}
	waitServed(t, created.Spec.ClusterIP, "http://"+created.Spec.ClusterIP+"/")
	return created.Spec.ClusterIP
}

// countDuring counts the test's own requests to ip while run runs.
func countDuring(t *testing.T, ip string, run func()) *e2e.Requests {
	t.Helper()
	defer e2e.GuardUntouched(t)()
	stop := make(chan struct{})
	counted := make(chan *e2e.Requests, 1)
	go func() {
		counted <- e2e.CountRequests(t, ip, "http://"+ip+"/", 50*time.Millisecond, 2400, 120*time.Second, stop)
	}()
	time.Sleep(300 * time.Millisecond)
	run()
	close(stop)
	return <-counted
}

// A rollout restart of 3 replicas on the real node, naive and hardened:
// the rollout verdict is SAFE only when no request failed, by --probe or
// by the test's own count, and the hardened one loses none.
func TestRealNodeRolloutRestart(t *testing.T) {
	env := e2e.Cluster(t)
	env.RealNode(t)
	for _, c := range []struct {
		name string
		o    realnode.PodOpts
	}{
		{"naive", realnode.PodOpts{}},
		{"hardened", realnode.PodOpts{SigtermAction: "drain:1s", PreStop: sleepHook(5)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ns := env.Namespace(t)
			ip := realDeployment(t, env, ns, 3, c.o)
			var w workloadRun
			own := countDuring(t, ip, func() {
				w = runWorkload(t, env.Kubeconfig, "watch", "deployment/web", "-n", ns, "--restart", "-o", "json",
					"--settle", "2s", "--timeout", "180s", "--probe", "http://"+ip+"/", "--probe-rate", "50")
			})
			v := w.verdict()
			t.Logf("exit %d; own requests %d sent, %d failed %v; findings:\n%s", w.code, own.Sent, len(own.Failures), own.Failures, strings.Join(v.Findings, "\n"))
			failed := 0
			if v.Requests != nil {
				failed = v.Requests.Failed
			}
			if !v.Risk && (failed > 0 || len(own.Failures) > 0) {
				t.Errorf("rollout SAFE, yet requests failed: --probe %d, the test's own %d", failed, len(own.Failures))
			}
			if c.name == "hardened" && (failed > 0 || len(own.Failures) > 0 || v.Risk || w.code != 0) {
				t.Errorf("hardened rollout: exit %d, risk %v, --probe failed %d, own failed %d", w.code, v.Risk, failed, len(own.Failures))
			}
		})
	}
}

// One replica replaced: kube-proxy's rules lag the endpoint's removal by
// up to its minimum sync period, so requests to the deleted pod's address
// time out. They are reported as stale rules, not as reaching the pod.
func TestRealNodeOneReplicaTimeouts(t *testing.T) {
	env := e2e.Cluster(t)
	env.RealNode(t)
	ns := env.Namespace(t)
	ip := realDeployment(t, env, ns, 1, realnode.PodOpts{})
	pods := waitReadyPods(t, env, ns, 1)
	var r run
	own := countDuring(t, ip, func() {
		stdout, stderr, code := kubectl(t, env, watchJSON(ns, pods[0].Name, "--delete", "--probe", "http://"+ip+"/", "--probe-rate", "50", "--probe-timeout", "500ms")...)
		r = parseRun(t, stdout, stderr, code)
	})
	v := r.summary.Verdict
	t.Logf("exit %d; own requests %d sent, %d failed; findings:\n%s", r.code, own.Sent, len(own.Failures), strings.Join(v.Findings, "\n"))
	if v.Requests == nil || (v.Requests.Failed > 0) != (len(own.Failures) > 0 || v.Requests.Failed > 0) || (v.Requests.Failed > 0 && !v.Risk) {
		t.Fatalf("requests %+v, own failures %d, risk %v", v.Requests, len(own.Failures), v.Risk)
	}
	late := 0
	for _, k := range v.Requests.AfterEndpointOutKinds {
		if k.Kind == probe.Timeout {
			late += k.Count
		}
	}
	if late > 0 && (!findingWith(v, "got no answer at all") || findingWith(v, "requests still reached the pod until")) {
		t.Errorf("%d timeouts after the endpoint left, not reported as stale rules:\n%s", late, strings.Join(v.Findings, "\n"))
	}
	if late == 0 {
		t.Logf("this run had no timeout after the endpoint left (the rules caught up in time): nothing to check on their wording")
	}
}
