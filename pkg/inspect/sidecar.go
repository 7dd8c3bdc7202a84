package inspect

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-graceful/kubectl-graceful/internal/podspec"
	"github.com/kubectl-graceful/kubectl-graceful/internal/prestop"
)

// Container order at termination (Kubernetes docs, "Pod Lifecycle:
// Termination of Pods"; docs/watch.md): the kubelet stops ordinary
// containers in parallel, each after its own preStop hook, so a container
// without one gets SIGTERM at once. Sidecar containers (initContainers with
// restartPolicy: Always, 1.29+) are stopped only after every ordinary
// container has exited.

var sidecarStopsFirst = register(&Check{
	ID:       "sidecar-stops-first",
	Field:    "containers[].lifecycle.preStop",
	Topic:    TopicTermination,
	Severity: SeverityWarning,
	Summary:  "an app container waits in its preStop while another ordinary container (a proxy such as istio-proxy, a backend with no port such as php-fpm, or any container without a preStop) gets SIGTERM or stops itself first: the app works through a neighbour that is draining or gone",
	run:      perWorkload(checkSidecarStopsFirst),
	Explanation: Explanation{
		Why: "The kubelet stops a pod's ordinary containers (spec.containers) in parallel, each after its own preStop hook. An app with a preStop delay keeps serving (or finishing work) for that long, but a proxy container beside it with no preStop (istio-proxy, linkerd-proxy, envoy, cloud-sql-proxy, or any container without one) gets SIGTERM at once and starts draining or exits: " +
			"the app's last requests and connections go through a proxy that is shutting down, which is the 503s and connection resets seen on every rollout in meshes. A container that declares no port but has a shorter preStop, or one that stops it (kill -QUIT 1 after a 1 s sleep), is read the same way: the pod serves as one machine, and a backend the front reaches inside it (php-fpm behind Caddy or nginx) that stops first fails the requests the front still takes. A container with ports and a shorter preStop is flagged when the spec shows the app reaching it inside the pod (a localhost, 127.0.0.1 or [::1] address with its port in the app's command, args or env; a .sock path on a volume both mount), and reported as unknown (info) when it shows no such path: only that path tells a mistake from a choice. Sidecar containers proper (initContainers with restartPolicy: Always, Kubernetes 1.29+) are stopped only after the app has exited and are not reported for that. " +
			"But every container's preStop hook runs at the start of termination, a native sidecar's included: a proxy whose hook ends it (pilot-agent request POST quitquitquit, curl .../quitquitquit, kill 1, linkerd-await --shutdown, an httpGet on /quitquitquit or /shutdown) rather than delaying is gone while the app still serves; the finding quotes what the hook runs. " +
			"Istio's own drain setting counts as a fix: proxy.istio.io/config terminationDrainDuration at least as long as the app's preStop, or EXIT_ON_ZERO_ACTIVE_CONNECTIONS.",
		Fix: "Replace a preStop that quits the proxy with a delay that outlasts the app's, or drop it on a native sidecar. Run the proxy as a native sidecar (initContainers with restartPolicy: Always; Istio: ENABLE_NATIVE_SIDECARS; Kubernetes 1.29+), or give it a preStop that outlasts the app's (sleep a few seconds longer, within the grace period), " +
			"or use the mesh's drain setting (Istio: proxy.istio.io/config with terminationDrainDuration longer than the app's preStop, or proxyMetadata EXIT_ON_ZERO_ACTIVE_CONNECTIONS: \"true\"; Linkerd: config.alpha.linkerd.io/proxy-wait-before-exit-seconds).",
		Source: "kubelet killContainersWithSyncResult (pkg/kubelet/kuberuntime/kuberuntime_container.go): ordinary containers in parallel, sidecars after them (KEP-753); Pod Lifecycle docs, \"Termination of Pods\"; Istio ProxyConfig terminationDrainDuration and EXIT_ON_ZERO_ACTIVE_CONNECTIONS",
	},
})

// knownProxies are container names of proxies that carry the app's traffic.
var knownProxies = []string{"istio-proxy", "linkerd-proxy", "envoy", "cloud-sql-proxy", "cloudsql-proxy", "consul-dataplane", "kuma-sidecar", "oauth2-proxy"}

func isProxy(name string) bool {
	return strings.HasSuffix(name, "-proxy") || slices.ContainsFunc(knownProxies, func(p string) bool { return name == p || strings.HasPrefix(name, p+"-") })
}

// appDelay is the longest preStop delay among w's ordinary containers: the
// container, its seconds, and whether the seconds are known from the spec.
type appDelay struct {
	spec    corev1.Container
	seconds int64
	known   bool
}

func longestPreStop(w *Workload, ctrs []corev1.Container) *appDelay {
	var best *appDelay
	for _, c := range ctrs {
		d, known, how := hookDuration(w, c)
		if _, quits := shutdownHook(c); quits || how == prestop.HowNone || how == prestop.HowTCPSocket || (known && d == 0) {
			continue
		}
		if best == nil || (known && (!best.known || d > best.seconds)) {
			best = &appDelay{c, d, known}
		}
	}
	return best
}

func checkSidecarStopsFirst(_ *scope, c *Check, w *Workload) []Finding {
	ctrs := w.Template.Spec.Containers
	app := longestPreStop(w, ctrs)
	out := proxiesThatQuit(c, w, app)
	if app == nil {
		return out
	}
	grace := podspec.GracePeriod(w.Template.Spec)
	for _, ctr := range ctrs {
		if _, quits := shutdownHook(ctr); ctr.Name == app.spec.Name || (quits && isProxy(ctr.Name)) {
			continue
		}
		why, what, stopsFirst := stopsBefore(w, ctr, app)
		if !stopsFirst {
			continue
		}
		if ownsPorts(w, ctr) && isProxy(app.spec.Name) {
			continue // a proxy that outlasts the app is the advised order
		}
		if ownsPorts(w, ctr) {
			via := dependsOn(app.spec, ctr)
			if via == "" {
				out = append(out, cannotTellDependency(c, w, ctr, app, why))
				continue
			}
			why += ", and " + app.spec.Name + " reaches it " + via
		}
		waits := fmt.Sprintf("its %d s preStop", app.seconds)
		if !app.known {
			waits = "its preStop (of a duration the spec does not tell)"
		}
		msg := fmt.Sprintf("container %s %s, so it %s while %s still waits in %s (grace period %d s): %s works through a %s that is draining or gone",
			ctr.Name, why, what, app.spec.Name, waits, grace, app.spec.Name, proxyWord(ctr.Name))
		out = append(out, c.finding(w, ctr.Name, msg, sidecarFix(w, ctr, app)))
	}
	return out
}

// stopsBefore reports whether ctr gets SIGTERM before the app's preStop
// ends, and says why: no preStop at all, or a shorter one (a backend the
// app reaches inside the pod, as php-fpm behind Caddy in
// api-platform/api-platform#1997: the pod serves as one machine). Whether
// a container with ports of its own matters is ownsPorts' and dependsOn's
// to say; Istio's drain settings cover istio-proxy. what is what then
// happens to it: it gets SIGTERM, or its own hook stops it.
func stopsBefore(w *Workload, ctr corev1.Container, app *appDelay) (why, what string, ok bool) {
	if ctr.Name == "istio-proxy" && istioDrainCovers(ctr, app, w.Template.Annotations) {
		return "", "", false
	}
	d, known, how := hookDuration(w, ctr)
	switch {
	case how == prestop.HowNone:
		return "has no preStop hook", "gets SIGTERM", true
	case !known || !app.known || d >= app.seconds:
		return "", "", false
	case how == prestop.HowExecStopsFirst:
		return fmt.Sprintf("has a preStop that stops it %s (%q), before %s's %d s", stopsWhen(d), cut(prestop.StopCommand(ctr.Lifecycle.PreStop.Exec.Command), maxQuotedCommand), app.spec.Name, app.seconds),
			"is stopped by its own hook", true
	}
	return fmt.Sprintf("has a %d s preStop, shorter than %s's %d s", d, app.spec.Name, app.seconds), "gets SIGTERM", true
}

// stopsWhen says when a hook that stops its container does, d seconds in.
func stopsWhen(d int64) string {
	if d == 0 {
		return "at once"
	}
	return fmt.Sprintf("after %d s", d)
}

func proxyWord(name string) string {
	if isProxy(name) {
		return "proxy"
	}
	return "neighbour container"
}

// istioDrainCovers reports whether Istio's own drain keeps istio-proxy
// serving through the app's preStop: proxy.istio.io/config (on the pod
// template) with terminationDrainDuration at least the app's delay, or
// EXIT_ON_ZERO_ACTIVE_CONNECTIONS in its proxyMetadata or the container's env.
func istioDrainCovers(ctr corev1.Container, app *appDelay, podAnnotations map[string]string) bool {
	if slices.ContainsFunc(ctr.Env, func(e corev1.EnvVar) bool { return e.Name == "EXIT_ON_ZERO_ACTIVE_CONNECTIONS" && e.Value == "true" }) {
		return true
	}
	var cfg struct {
		TerminationDrainDuration string            `json:"terminationDrainDuration"`
		ProxyMetadata            map[string]string `json:"proxyMetadata"`
	}
	if yaml.Unmarshal([]byte(podAnnotations["proxy.istio.io/config"]), &cfg) != nil {
		return false
	}
	if cfg.ProxyMetadata["EXIT_ON_ZERO_ACTIVE_CONNECTIONS"] == "true" {
		return true
	}
	d, err := time.ParseDuration(cfg.TerminationDrainDuration)
	return err == nil && app.known && int64(d/time.Second) >= app.seconds
}

// sidecarFix gives the container a native preStop sleep that outlasts the
// app's by 5 s (a kubectl patch where the container is in the template).
func sidecarFix(w *Workload, ctr corev1.Container, app *appDelay) string {
	if !app.known {
		return "make " + ctr.Name + " a native sidecar (initContainers, restartPolicy: Always), or give it a preStop longer than " + app.spec.Name + "'s"
	}
	secs := app.seconds + 5
	patch := containerPatch(ctr.Name, map[string]any{"lifecycle": map[string]any{"preStop": map[string]any{"sleep": map[string]any{"seconds": secs}}}})
	return patchCommand(w, patch) + fmt.Sprintf(" (or make %s a native sidecar: initContainers with restartPolicy: Always)", ctr.Name)
}
