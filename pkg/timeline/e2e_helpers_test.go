package timeline_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/internal/localcluster/sim"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timeline/render"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// podOpts describe a simulated pod: its grace period (seconds), preStop
// sleep (seconds, 0 none) and the sim.graceful.test annotations.
type podOpts struct {
	grace   int64
	preStop int64
	// execSleep makes the preStop an exec `sleep N`, which the API does not
	// bound by the grace period (sleep.seconds must be below it).
	execSleep bool
	// sleepArg, when set, is the exec sleep's argument instead of preStop
	// ("0.5" for half a second).
	sleepArg   string
	exitAfter  string
	preStopBad bool
	labels     map[string]string
	// sidecar adds a container of that name without preStop, beside app;
	// nativeSidecar makes it an initContainer with restartPolicy Always.
	sidecar       string
	nativeSidecar bool
	// hook, when set, is app's preStop instead of the sleep of preStop.
	hook *corev1.LifecycleHandler
}

func podSpec(node string, o podOpts) corev1.PodSpec {
	c := corev1.Container{Name: "app", Image: "registry.example/web:1"}
	if o.preStop > 0 {
		h := &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: o.preStop}}
		if o.execSleep {
			arg := strconv.FormatInt(o.preStop, 10)
			if o.sleepArg != "" {
				arg = o.sleepArg
			}
			h = &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sleep", arg}}}
		}
		c.Lifecycle = &corev1.Lifecycle{PreStop: h}
	}
	if o.hook != nil {
		c.Lifecycle = &corev1.Lifecycle{PreStop: o.hook}
	}
	g := o.grace
	spec := corev1.PodSpec{NodeName: node, TerminationGracePeriodSeconds: &g, Containers: []corev1.Container{c}}
	if o.sidecar != "" {
		proxy := corev1.Container{Name: o.sidecar, Image: "registry.example/proxy:1"}
		if o.nativeSidecar {
			always := corev1.ContainerRestartPolicyAlways
			proxy.RestartPolicy = &always
			spec.InitContainers = append(spec.InitContainers, proxy)
		} else {
			spec.Containers = append(spec.Containers, proxy)
		}
	}
	return spec
}

func annotations(o podOpts) map[string]string {
	a := map[string]string{}
	if o.exitAfter != "" {
		a[sim.ExitAfter] = o.exitAfter
	}
	if o.preStopBad {
		a[sim.PreStopFails] = "true"
	}
	return a
}

func labelsOf(o podOpts) map[string]string {
	if o.labels != nil {
		return o.labels
	}
	return map[string]string{"app": "web"}
}

// watchJSON is the argument list of a bounded `watch pod -o json` run.
func watchJSON(ns, pod string, extra ...string) []string {
	return append([]string{"watch", "pod", pod, "-n", ns, "-o", "json", "--settle", "1s", "--timeout", "90s"}, extra...)
}

// createServedPods creates pods web-0 (the one to watch) and web-1 with o,
// and Service web selecting both: the Service keeps another ready endpoint
// while web-0 terminates.
func createServedPods(t *testing.T, env *e2e.Env, ns, node string, o podOpts) *corev1.Pod {
	t.Helper()
	pod := createPod(t, env, ns, node, "web-0", o)
	createPod(t, env, ns, node, "web-1", o)
	createService(t, env, ns, "web", nil, pod)
	return pod
}

// createPod creates a bare pod on node and waits until it is Ready.
func createPod(t *testing.T, env *e2e.Env, ns, node, name string, o podOpts) *corev1.Pod {
	t.Helper()
	waitDefaultServiceAccount(t, env, ns)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labelsOf(o), Annotations: annotations(o)}, Spec: podSpec(node, o)}
	if _, err := env.Client.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating pod: %v", err)
	}
	return waitPodReady(t, env, ns, name)
}

// waitDefaultServiceAccount waits for the namespace's "default"
// ServiceAccount: until the controller creates it, the ServiceAccount
// admission plugin refuses pods (and a ReplicaSet backs off).
func waitDefaultServiceAccount(t *testing.T, env *e2e.Env, ns string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, e2e.SetupWait, true, func(ctx context.Context) (bool, error) {
		_, err := env.Client.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("no default ServiceAccount in %s: %v", ns, err)
	}
}

func waitPodReady(t *testing.T, env *e2e.Env, ns, name string) *corev1.Pod {
	t.Helper()
	var got *corev1.Pod
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, e2e.SetupWait, true, func(ctx context.Context) (bool, error) {
		p, err := env.Client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				got = p
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("pod %s/%s not Ready: %v", ns, name, err)
	}
	return got
}

// createService creates a Service selecting app=web (or sel) and waits until
// an EndpointSlice lists the pod as ready.
func createService(t *testing.T, env *e2e.Env, ns, name string, sel map[string]string, pod *corev1.Pod) {
	t.Helper()
	if sel == nil {
		sel = map[string]string{"app": "web"}
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.ServiceSpec{Selector: sel,
		Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}}}
	if _, err := env.Client.CoreV1().Services(ns).Create(context.Background(), svc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating service: %v", err)
	}
	if pod != nil {
		waitEndpointReady(t, env, ns, name, pod)
	}
}

func waitEndpointReady(t *testing.T, env *e2e.Env, ns, service string, pod *corev1.Pod) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, e2e.SetupWait, true, func(ctx context.Context) (bool, error) {
		l, err := env.Client.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + service})
		if err != nil {
			return false, nil
		}
		for _, s := range l.Items {
			for _, ep := range s.Endpoints {
				if ep.TargetRef != nil && ep.TargetRef.UID == pod.UID && ep.Conditions.Ready != nil && *ep.Conditions.Ready {
					return true, nil
				}
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("Service %s never listed pod %s as ready: %v", service, pod.Name, err)
	}
}

// createDeployment creates a Deployment of replicas simulated pods on node
// and returns its Ready pods.
func createDeployment(t *testing.T, env *e2e.Env, ns, node, name string, replicas int32, o podOpts) []corev1.Pod {
	t.Helper()
	waitDefaultServiceAccount(t, env, ns)
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: appsv1.DeploymentSpec{
		Replicas: &replicas,
		Selector: &metav1.LabelSelector{MatchLabels: labelsOf(o)},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labelsOf(o), Annotations: annotations(o)}, Spec: podSpec(node, o)},
	}}
	if _, err := env.Client.AppsV1().Deployments(ns).Create(context.Background(), d, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating deployment: %v", err)
	}
	return waitReadyPods(t, env, ns, int(replicas))
}

func waitReadyPods(t *testing.T, env *e2e.Env, ns string, n int) []corev1.Pod {
	t.Helper()
	return env.WaitReadyPods(t, ns, n, 60*time.Second)
}

// run is a finished plugin run: its JSON lines (for -o json), its text and
// its exit code.
type run struct {
	stdout, stderr string
	code           int
	events         []render.JSONEvent
	summary        render.JSONSummary
	// own is the test's own request count beside the run, when it kept one.
	own *e2e.Requests
}

// pluginCmd runs `kubectl graceful ARGS` through the real kubectl with the
// freshly built plugin first on PATH, for runs that must go on while the
// test acts on the cluster.
func pluginCmd(t *testing.T, kubeconfig string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("kubectl", append([]string{"graceful"}, args...)...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig,
		"PATH="+filepath.Dir(e2e.Binary(t))+string(os.PathListSeparator)+os.Getenv("PATH"))
	return cmd
}

// start starts the plugin and returns a function that waits for it.
func start(t *testing.T, kubeconfig string, args ...string) func() run {
	t.Helper()
	cmd := pluginCmd(t, kubeconfig, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting kubectl graceful: %v", err)
	}
	return func() run {
		err := cmd.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("kubectl graceful: %v", err)
		}
		return parseRun(t, out.String(), errb.String(), code)
	}
}

func parseRun(t *testing.T, stdout, stderr string, code int) run {
	t.Helper()
	r := run{stdout: stdout, stderr: stderr, code: code}
	if !strings.HasPrefix(stdout, "{") {
		return r
	}
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var probe struct{ Type string }
		if err := json.Unmarshal(line, &probe); err != nil {
			t.Fatalf("-o json line is not JSON: %q", line)
		}
		switch probe.Type {
		case "summary":
			if err := json.Unmarshal(line, &r.summary); err != nil {
				t.Fatalf("summary: %v", err)
			}
		case "event", "gap":
			var e render.JSONEvent
			if err := json.Unmarshal(line, &e); err != nil {
				t.Fatalf("event: %v", err)
			}
			r.events = append(r.events, e)
		}
	}
	if r.summary.Type != "summary" {
		t.Fatalf("no summary line in -o json output:\n%s\nstderr:\n%s", stdout, stderr)
	}
	if lines := strings.Split(strings.TrimSpace(stdout), "\n"); strings.Contains(lines[len(lines)-1], "null") {
		t.Errorf("the summary holds a null (lists must be []): %s", lines[len(lines)-1])
	}
	return r
}

// first returns the first event of kind (and, when set, whose message
// contains sub), failing the test when there is none.
func (r run) first(t *testing.T, kind timeline.Kind, sub string) render.JSONEvent {
	t.Helper()
	for _, e := range r.events {
		if e.Type == "event" && e.Kind == kind && strings.Contains(e.Message, sub) {
			return e
		}
	}
	t.Fatalf("no %s event containing %q in:\n%s", kind, sub, r.stdout)
	return render.JSONEvent{}
}

func (r run) has(kind timeline.Kind) bool {
	for _, e := range r.events {
		if e.Kind == kind {
			return true
		}
	}
	return false
}

func msOf(t *testing.T, e render.JSONEvent) int64 {
	t.Helper()
	if e.Ms == nil {
		t.Fatalf("event %s has no ms since the delete request", e.Kind)
	}
	return *e.Ms
}

// ordered checks that the events' times never go backwards.
func ordered(t *testing.T, what string, evs ...render.JSONEvent) {
	t.Helper()
	for i := 1; i < len(evs); i++ {
		if msOf(t, evs[i]) < msOf(t, evs[i-1]) {
			t.Errorf("%s: %s at +%d ms came before %s at +%d ms", what, evs[i].Kind, *evs[i].Ms, evs[i-1].Kind, *evs[i-1].Ms)
		}
	}
}

// near checks got (ms) is within tol of want.
func near(t *testing.T, what string, got *int64, want, tol int64) {
	t.Helper()
	if got == nil {
		t.Errorf("%s: none, want about %d ms", what, want)
		return
	}
	if *got < want-tol || *got > want+tol {
		t.Errorf("%s = %d ms, want %d ± %d ms", what, *got, want, tol)
	}
}

func findingWith(v timeline.Verdict, sub string) bool {
	for _, f := range v.Findings {
		if strings.Contains(f, sub) {
			return true
		}
	}
	return false
}
