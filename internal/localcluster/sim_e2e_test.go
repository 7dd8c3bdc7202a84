package localcluster_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/internal/localcluster/sim"
)

// exit is what the test saw of a terminated pod.
type exit struct {
	code    int32
	phase   corev1.PodPhase
	elapsed time.Duration // from the delete request to the watch seeing the exit
}

func simPod(name string, grace int64, annotations map[string]string, hook *corev1.LifecycleHandler) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": name}, Annotations: annotations},
		Spec: corev1.PodSpec{
			TerminationGracePeriodSeconds: &grace,
			Containers: []corev1.Container{{
				Name: "app", Image: "example.com/app:1",
				Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}},
			}},
		},
	}
	if hook != nil {
		p.Spec.Containers[0].Lifecycle = &corev1.Lifecycle{PreStop: hook}
	}
	return p
}

// runTermination creates the pod, waits until it is Ready, deletes it and
// returns when the watch shows its containers terminated.
func runTermination(t *testing.T, env *e2e.Env, ns string, pod *corev1.Pod) exit {
	t.Helper()
	startReady(t, env, ns, pod)
	return deleteAndWaitExit(t, env, ns, pod.Name)
}

// startReady creates the pod and waits until it is Running and Ready.
func startReady(t *testing.T, env *e2e.Env, ns string, pod *corev1.Pod) {
	t.Helper()
	ctx := context.Background()
	pods := env.Client.CoreV1().Pods(ns)
	if _, err := pods.Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e2e.WaitFor(t, time.Minute, pod.Name+" Ready", func() bool {
		p, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
		return err == nil && isReady(p)
	})
}

// deleteAndWaitExit deletes the pod with its own grace period and returns
// when the watch shows its containers terminated.
func deleteAndWaitExit(t *testing.T, env *e2e.Env, ns, name string) exit {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	pods := env.Client.CoreV1().Pods(ns)
	w, err := pods.Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	start := time.Now()
	if err := pods.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for ev := range w.ResultChan() {
		p, ok := ev.Object.(*corev1.Pod)
		if !ok || len(p.Status.ContainerStatuses) == 0 {
			continue
		}
		if term := p.Status.ContainerStatuses[0].State.Terminated; term != nil {
			return exit{code: term.ExitCode, phase: p.Status.Phase, elapsed: time.Since(start)}
		}
	}
	t.Fatalf("watch ended before %s terminated", name)
	return exit{}
}

func isReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func within(t *testing.T, what string, got, want, tolerance time.Duration) {
	t.Helper()
	if got < want-tolerance || got > want+tolerance {
		t.Errorf("%s after %s, want %s ± %s", what, got.Round(10*time.Millisecond), want, tolerance)
	}
}

func TestSimulatedExitBeforeGracePeriod(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	ns := env.Namespace(t)
	got := runTermination(t, env, ns, simPod("quick", 10, map[string]string{sim.ExitAfter: "3s"}, nil))
	if got.code != 0 || got.phase != corev1.PodSucceeded {
		t.Errorf("exit code %d phase %s, want 0 Succeeded", got.code, got.phase)
	}
	within(t, "exit", got.elapsed, 3*time.Second, 800*time.Millisecond)
	assertEvent(t, env, ns, "quick", "Killing")
	assertGone(t, env, ns, "quick")
}

func TestSimulatedKillAtGraceDeadline(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	ns := env.Namespace(t)
	got := runTermination(t, env, ns, simPod("stubborn", 10, map[string]string{sim.ExitAfter: "20s"}, nil))
	if got.code != 137 || got.phase != corev1.PodFailed {
		t.Errorf("exit code %d phase %s, want 137 Failed", got.code, got.phase)
	}
	within(t, "SIGKILL", got.elapsed, 10*time.Second, time.Second)
	assertGone(t, env, ns, "stubborn")
}

func TestSimulatedExitAfterPreStopFromSpec(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	ns := env.Namespace(t)
	hooks := map[string]*corev1.LifecycleHandler{
		"native-sleep": {Sleep: &corev1.SleepAction{Seconds: 2}},
		"exec-sleep":   {Exec: &corev1.ExecAction{Command: []string{"sh", "-c", "echo bye && sleep 2"}}},
		// Forms the Stage reads as pkg/prestop does: a fraction rounded up,
		// and arguments summed (1.5 s + 0.5 s).
		"exec-fraction": {Exec: &corev1.ExecAction{Command: []string{"busybox", "sleep", "1.5"}}},
		"exec-sum":      {Exec: &corev1.ExecAction{Command: []string{"/bin/sleep", "1.5", "0.5s"}}},
	}
	for name, hook := range hooks {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := runTermination(t, env, ns, simPod(name, 30, nil, hook))
			if got.code != 0 {
				t.Errorf("exit code %d, want 0", got.code)
			}
			// preStop 2 s + 1 s of the app's own shutdown.
			within(t, "exit", got.elapsed, 3*time.Second, 800*time.Millisecond)
		})
	}
}

func TestSimulatedFailedPreStopHook(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	ns := env.Namespace(t)
	hook := &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sleep", "8"}}}
	got := runTermination(t, env, ns, simPod("nohook", 30, map[string]string{sim.PreStopFails: "true"}, hook))
	// The hook failed, so its 8 s delay never happened: the app exits after 1 s.
	within(t, "exit", got.elapsed, time.Second, 800*time.Millisecond)
	assertEvent(t, env, ns, "nohook", "FailedPreStopHook")
}

func TestSimulatedEndpointTerminatingThenRemoved(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	ns := env.Namespace(t)
	ctx := context.Background()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{"app": "web"},
			Ports:    []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromString("http")}},
		},
	}
	if _, err := env.Client.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	slices := env.Client.DiscoveryV1().EndpointSlices(ns)
	sel := metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=web"}
	endpoint := func() *discoveryv1.Endpoint {
		list, err := slices.List(ctx, sel)
		if err != nil {
			return nil
		}
		for _, s := range list.Items {
			for i := range s.Endpoints {
				if ref := s.Endpoints[i].TargetRef; ref != nil && ref.Name == "web" {
					return &s.Endpoints[i]
				}
			}
		}
		return nil
	}
	startReady(t, env, ns, simPod("web", 10, map[string]string{sim.ExitAfter: "4s"}, nil))
	e2e.WaitFor(t, 30*time.Second, "endpoint ready", func() bool {
		ep := endpoint()
		return ep != nil && ep.Conditions.Ready != nil && *ep.Conditions.Ready
	})
	// The endpoint is polled beside the deletion; only the test goroutine
	// may fail the test, so the poller just reports what it saw.
	sawTerminating := make(chan bool, 1)
	go func() {
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			ep := endpoint()
			if ep != nil && isTrue(ep.Conditions.Terminating) && isTrue(ep.Conditions.Serving) && !isTrue(ep.Conditions.Ready) {
				sawTerminating <- true
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		sawTerminating <- false
	}()
	deleteAndWaitExit(t, env, ns, "web")
	if !<-sawTerminating {
		t.Error("the endpoint was never terminating and still serving (ready=false) while the pod shut down")
	}
	e2e.WaitFor(t, 30*time.Second, "endpoint removed", func() bool { return endpoint() == nil })
}

func isTrue(b *bool) bool { return b != nil && *b }

func assertEvent(t *testing.T, env *e2e.Env, ns, pod, reason string) {
	t.Helper()
	e2e.WaitFor(t, 10*time.Second, reason+" event for "+pod, func() bool {
		list, err := env.Client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{
			FieldSelector: "involvedObject.name=" + pod + ",reason=" + reason,
		})
		return err == nil && len(list.Items) > 0
	})
}

func assertGone(t *testing.T, env *e2e.Env, ns, pod string) {
	t.Helper()
	e2e.WaitFor(t, 10*time.Second, pod+" deleted", func() bool {
		_, err := env.Client.CoreV1().Pods(ns).Get(context.Background(), pod, metav1.GetOptions{})
		return err != nil
	})
}
