package inspect

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// withContainer adds a second ordinary container (or, native, a sidecar
// initContainer with restartPolicy: Always).
func withContainer(name string, hook *corev1.LifecycleHandler, native bool, mods ...func(*corev1.Container)) deployOpt {
	return func(d *appsv1.Deployment) {
		c := corev1.Container{Name: name, Image: "example/" + name + ":1"}
		if hook != nil {
			c.Lifecycle = &corev1.Lifecycle{PreStop: hook}
		}
		for _, m := range mods {
			m(&c)
		}
		if native {
			c.RestartPolicy = ptr.To(corev1.ContainerRestartPolicyAlways)
			d.Spec.Template.Spec.InitContainers = append(d.Spec.Template.Spec.InitContainers, c)
			return
		}
		d.Spec.Template.Spec.Containers = append(d.Spec.Template.Spec.Containers, c)
	}
}

func port(n int32) func(*corev1.Container) {
	return func(c *corev1.Container) { c.Ports = append(c.Ports, corev1.ContainerPort{ContainerPort: n}) }
}

func env(name, value string) func(*corev1.Container) {
	return func(c *corev1.Container) { c.Env = append(c.Env, corev1.EnvVar{Name: name, Value: value}) }
}

func TestSidecarStopsFirst(t *testing.T) {
	app15 := preStop(execHook("sleep", "15"))
	istioConfig := func(cfg string) deployOpt { return templateAnnotation("proxy.istio.io/config", cfg) }
	exitOnZero := func(c *corev1.Container) {
		c.Env = []corev1.EnvVar{{Name: "EXIT_ON_ZERO_ACTIVE_CONNECTIONS", Value: "true"}}
	}
	runCases(t, "sidecar-stops-first", []checkCase{
		{"app sleeps 15 s, istio-proxy has no preStop", objs(deploy("web", app15, grace(40), withContainer("istio-proxy", nil, false)), web), 1,
			"container istio-proxy has no preStop hook, so it gets SIGTERM while app still waits in its 15 s preStop (grace period 40 s): app works through a proxy that is draining or gone"},
		{"not behind a Service: the preStop still means the app keeps working", objs(deploy("worker", app15, grace(40), withContainer("cloud-sql-proxy", nil, false))), 1, "cloud-sql-proxy has no preStop hook"},
		{"native sidecar is stopped after the app", objs(deploy("web", app15, grace(40), withContainer("istio-proxy", nil, true)), web), 0, ""},
		{"proxy preStop outlasts the app's", objs(deploy("web", app15, grace(40), withContainer("envoy", sleepHook(20), false)), web), 0, ""},
		{"proxy preStop shorter than the app's", objs(deploy("web", app15, grace(40), withContainer("linkerd-proxy", sleepHook(5), false)), web), 1,
			"linkerd-proxy has a 5 s preStop, shorter than app's 15 s"},
		{"any container without a preStop", objs(deploy("web", app15, grace(40), withContainer("log-shipper", nil, false)), web), 1, "a neighbour container that is draining or gone"},
		// A container with ports and a shorter preStop: only the path from
		// the app to it tells a mistake from a choice.
		{"a container with ports, no path shown from the app: cannot tell", objs(deploy("web", app15, grace(40), withContainer("cache", sleepHook(2), false, port(11211))), web), 1,
			"container cache has a 2 s preStop, shorter than app's 15 s, and serves ports of its own: whether app reaches it inside the pod (localhost, a socket) the spec does not show"},
		{"the app reaches it at localhost: stops first", objs(deploy("web", app15, grace(40), container(env("UPSTREAM", "http://127.0.0.1:9000/")),
			withContainer("php", sleepHook(2), false, port(9000))), web), 1,
			"container php has a 2 s preStop, shorter than app's 15 s, and app reaches it at 127.0.0.1:9000, so it gets SIGTERM while app still waits"},
		{"a longer port number is another port: cannot tell", objs(deploy("web", app15, grace(40), container(env("UPSTREAM", "localhost:90001")),
			withContainer("php", sleepHook(2), false, port(9000))), web), 1, "the audit cannot tell"},
		{"the app reaches it through a socket on a shared volume: stops first", objs(deploy("web", app15, grace(40),
			container(func(c *corev1.Container) {
				c.Args = []string{"-c", "fastcgi_pass unix:/run/php/php-fpm.sock;"}
				c.VolumeMounts = []corev1.VolumeMount{{Name: "run", MountPath: "/run/php"}}
			}),
			withContainer("php", sleepHook(1), false, port(9253), func(c *corev1.Container) {
				c.VolumeMounts = []corev1.VolumeMount{{Name: "run", MountPath: "/var/run/php"}}
			})), web), 1,
			"app reaches it through the socket /run/php/php-fpm.sock on volume run"},
		// api-platform/api-platform#1997: php-fpm has no port; every request
		// through the front ends in it, and it quits 1 s in.
		{"a backend without ports stops before the front", objs(deploy("web", app15, grace(40), withContainer("php", execHook("/bin/sh", "-c", "/bin/sleep 1; kill -QUIT 1"), false)), web), 1,
			"container php has a 1 s preStop, shorter than app's 15 s, so it gets SIGTERM while app still waits in its 15 s preStop (grace period 40 s): app works through a neighbour container that is draining or gone"},
		{"app without a preStop: missing-prestop's case", objs(deploy("web", preStop(nil), withContainer("istio-proxy", nil, false)), web), 0, ""},
		{"single container", objs(deploy("web", app15), web), 0, ""},
		{"Istio terminationDrainDuration covers the app's preStop", objs(deploy("web", app15, grace(40), istioConfig("terminationDrainDuration: 20s"), withContainer("istio-proxy", nil, false)), web), 0, ""},
		{"Istio terminationDrainDuration shorter than the app's preStop", objs(deploy("web", app15, grace(40), istioConfig(`{"terminationDrainDuration": "10s"}`), withContainer("istio-proxy", nil, false)), web), 1, "istio-proxy"},
		{"Istio EXIT_ON_ZERO_ACTIVE_CONNECTIONS in proxyMetadata", objs(deploy("web", app15, grace(40), istioConfig("proxyMetadata:\n  EXIT_ON_ZERO_ACTIVE_CONNECTIONS: \"true\""), withContainer("istio-proxy", nil, false)), web), 0, ""},
		{"Istio EXIT_ON_ZERO_ACTIVE_CONNECTIONS in the proxy's env", objs(deploy("web", app15, grace(40), withContainer("istio-proxy", nil, false, exitOnZero)), web), 0, ""},
	})
}

// The fix is a concrete patch: a native preStop sleep on the proxy 5 s
// longer than the app's.
func TestSidecarStopsFirstFix(t *testing.T) {
	got := run("sidecar-stops-first", deploy("web", preStop(execHook("sleep", "15")), grace(40), withContainer("istio-proxy", nil, false)), web)
	if len(got) != 1 || got[0].Container != "istio-proxy" || got[0].Severity != SeverityWarning ||
		!strings.Contains(got[0].Fix, `"name":"istio-proxy"`) || !strings.Contains(got[0].Fix, `"seconds":20`) {
		t.Errorf("finding = %+v", got)
	}
}

// The drain preflight reads a pod's termination findings through
// PodFindings: the sidecar check is among them.
func TestPodFindingsSidecar(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "shop"},
		Spec: corev1.PodSpec{TerminationGracePeriodSeconds: ptr.To[int64](40), Containers: []corev1.Container{
			{Name: "app", Lifecycle: &corev1.Lifecycle{PreStop: execHook("sleep", "15")}},
			{Name: "istio-proxy"}}}}
	got := PodFindings(pod)
	if len(got) != 1 || got[0].Check != "sidecar-stops-first" || got[0].Object.Kind != "Pod" || got[0].Container != "istio-proxy" {
		t.Fatalf("PodFindings = %+v", got)
	}
	pod.Annotations = map[string]string{SkipAnnotation: "sidecar-stops-first"}
	if got := PodFindings(pod); len(got) != 0 {
		t.Errorf("skip annotation: %+v", got)
	}
}
