package inspect

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func httpGetHook(path string) *corev1.LifecycleHandler {
	return &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Path: path}}
}

// A proxy whose preStop ends it at once, native sidecar or ordinary
// container, leaves the app serving through a proxy that is gone; a hook
// that sleeps first, or that does not end the proxy, is not this finding.
func TestSidecarStopsFirstProxyThatQuits(t *testing.T) {
	app15 := preStop(execHook("sleep", "15"))
	runCases(t, "sidecar-stops-first", []checkCase{
		{"native istio-proxy, pilot-agent quitquitquit", objs(deploy("web", app15, grace(40), withContainer("istio-proxy", execHook("pilot-agent", "request", "POST", "quitquitquit"), true)), web), 1,
			`native sidecar istio-proxy has a preStop hook that shuts it down at once, exec ["pilot-agent", "request", "POST", "quitquitquit"]: the kubelet runs it at the start of termination, while app still waits in its 15 s preStop and serves, so the app keeps serving through a proxy that is gone`},
		{"ordinary envoy, curl quitquitquit", objs(deploy("web", app15, grace(40), withContainer("envoy", execHook("curl", "-X", "POST", "localhost:15000/quitquitquit"), false)), web), 1,
			`container envoy has a preStop hook that shuts it down at once, exec ["curl", "-X", "POST", "localhost:15000/quitquitquit"]`},
		{"kill 1", objs(deploy("web", app15, grace(40), withContainer("cloud-sql-proxy", execHook("kill", "1"), false)), web), 1, `exec ["kill", "1"]`},
		// deckhouse/deckhouse#22068's right hook: wait while the app has
		// connections, then quit. Its loop is no "1 s preStop".
		{"istio-proxy waits for the app, then quits", objs(deploy("web", app15, grace(40), withContainer("istio-proxy", execHook("/bin/sh", "-c", "while [ $(netstat -plunt | grep tcp | grep -v envoy | wc -l) -ne 0 ]; do sleep 1; done; curl -XPOST localhost:15000/quitquitquit"), false)), web), 0, ""},
		{"sh -c kill -TERM 1 on a native sidecar", objs(deploy("web", app15, grace(40), withContainer("log-shipper", execHook("/bin/sh", "-c", "kill -TERM 1"), true)), web), 1,
			`native sidecar log-shipper has a preStop hook that shuts it down at once, exec ["/bin/sh", "-c", "kill -TERM 1"]: the kubelet runs it at the start of termination, while app still waits in its 15 s preStop and serves, so the app keeps serving through a sidecar that is gone`},
		{"kill -s TERM 1", objs(deploy("web", app15, grace(40), withContainer("envoy", execHook("sh", "-c", "kill -s TERM 1"), false)), web), 1, "kill -s TERM 1"},
		{"linkerd-await --shutdown", objs(deploy("web", app15, grace(40), withContainer("linkerd-proxy", execHook("linkerd-await", "--shutdown"), true)), web), 1, `"linkerd-await", "--shutdown"`},
		{"httpGet /quitquitquit", objs(deploy("web", app15, grace(40), withContainer("istio-proxy", httpGetHook("/quitquitquit"), true)), web), 1, `httpGet ":0/quitquitquit"`},
		{"httpGet /shutdown on an ordinary proxy", objs(deploy("web", app15, grace(40), withContainer("oauth2-proxy", httpGetHook("/shutdown"), false)), web), 1, `container oauth2-proxy has a preStop hook that shuts it down at once, httpGet ":0/shutdown"`},
		{"the app has no preStop: the proxy still quits under it", objs(deploy("web", preStop(nil), withContainer("istio-proxy", httpGetHook("/quitquitquit"), true)), web), 1,
			"while the app gets SIGTERM beside it and finishes its last requests and connections"},
		{"a sleep before the quit delays it", objs(deploy("web", app15, grace(40), withContainer("envoy", execHook("sh", "-c", "sleep 20 && curl -X POST localhost:15000/quitquitquit"), false)), web), 0, ""},
		{"a drain that does not end it", objs(deploy("web", app15, grace(40), withContainer("envoy", httpGetHook("/healthcheck/fail"), false)), web), 0, ""},
		{"an ordinary container with ports that kills itself: cannot tell", objs(deploy("web", app15, grace(40), withContainer("cache", execHook("kill", "1"), false, func(c *corev1.Container) {
			c.Ports = []corev1.ContainerPort{{ContainerPort: 11211}}
		})), web), 1, `container cache has a preStop that stops it at once ("kill 1"), before app's 15 s, and serves ports of its own: whether app reaches it`},
		{"a backend without ports that kills itself at once", objs(deploy("web", app15, grace(40), withContainer("cache", execHook("kill", "1"), false)), web), 1, `container cache has a preStop that stops it at once ("kill 1"), before app's 15 s, so it is stopped by its own hook while app still waits`},
		{"the app's own quit hook", objs(deploy("web", preStop(execHook("curl", "localhost:8080/shutdown")), grace(40)), web), 0, ""},
	})
}

// Cluster text in the hook is quoted and escaped, and a quitting proxy is
// not taken for the app waiting in its preStop.
func TestSidecarStopsFirstQuitHookQuotedNotTheApp(t *testing.T) {
	got := run("sidecar-stops-first", deploy("web", preStop(nil), withContainer("envoy", execHook("sh", "-c", "curl -X POST localhost:15000/quitquitquit\x1b[2J"), false)), web)
	if len(got) != 1 || !strings.Contains(got[0].Message, `quitquitquit\x1b[2J"]`) || strings.Contains(got[0].Message, "\x1b") {
		t.Fatalf("want one finding with the escape quoted: %+v", got)
	}
	if strings.Contains(got[0].Message, "container app has no preStop") {
		t.Errorf("the quitting proxy was taken for the app: %s", got[0].Message)
	}
}
