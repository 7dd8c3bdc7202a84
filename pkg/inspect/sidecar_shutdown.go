package inspect

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/podspec"
)

// A proxy's preStop runs at the start of termination, like the app's
// (kubelet killContainer runs every container's hook when it stops it,
// native sidecars' included). A hook that ends the proxy there, rather
// than delaying, leaves the app serving through a proxy that is gone.

// shutdownCommand matches, in a preStop exec command, what ends the proxy
// at once: Envoy's and pilot-agent's quitquitquit, a /shutdown or /quit
// endpoint called with curl or wget, a signal to PID 1 or a pkill/killall,
// linkerd-await --shutdown.
var shutdownCommand = regexp.MustCompile(`quitquitquit|(curl|wget)\b[^;&|]*/(shutdown|quit)\b|\bkill(\s+(-s\s+\w+|-\S+))*\s+1\b|\b(pkill|killall)\b|--shutdown\b`)

// shutdownPath matches an httpGet preStop path that asks the proxy to exit.
var shutdownPath = regexp.MustCompile(`(?i)/(quitquitquit|shutdown|quit)/?$`)

// shutdownHook says what container c's preStop hook does when it ends the
// container at once (quoted and escaped, hookCommand); ok is false for no
// hook, a hook that sleeps before anything else, or one that does not end
// it.
func shutdownHook(c corev1.Container) (string, bool) {
	if c.Lifecycle == nil || c.Lifecycle.PreStop == nil {
		return "", false
	}
	h := c.Lifecycle.PreStop
	switch {
	case h.Exec != nil:
		cmd := strings.Join(h.Exec.Command, " ")
		loc := shutdownCommand.FindStringIndex(cmd)
		if loc == nil || strings.Contains(cmd[:loc[0]], "sleep") {
			return "", false
		}
	case h.HTTPGet != nil:
		if !shutdownPath.MatchString(strings.SplitN(h.HTTPGet.Path, "?", 2)[0]) {
			return "", false
		}
	default:
		return "", false
	}
	return hookCommand(h), true
}

// proxiesThatQuit flags the proxies of w, native sidecars (any
// initContainer with restartPolicy: Always) and ordinary containers named
// as known proxies, whose preStop hook shuts them down at once. app is the
// container that waits longest in its preStop, nil when none waits.
func proxiesThatQuit(c *Check, w *Workload, app *appDelay) []Finding {
	spec := w.Template.Spec
	var out []Finding
	for _, ctr := range podspec.TerminatingContainers(spec)[len(spec.Containers):] {
		out = append(out, quitFinding(c, w, ctr, "native sidecar", app)...)
	}
	for _, ctr := range spec.Containers {
		if isProxy(ctr.Name) {
			out = append(out, quitFinding(c, w, ctr, "container", app)...)
		}
	}
	return out
}

func quitFinding(c *Check, w *Workload, ctr corev1.Container, kind string, app *appDelay) []Finding {
	what, ok := shutdownHook(ctr)
	if !ok {
		return nil
	}
	meanwhile := "while the app gets SIGTERM beside it and finishes its last requests and connections"
	switch {
	case app != nil && app.known:
		meanwhile = fmt.Sprintf("while %s still waits in its %d s preStop and serves", app.spec.Name, app.seconds)
	case app != nil:
		meanwhile = fmt.Sprintf("while %s still waits in its preStop and serves", app.spec.Name)
	}
	word := proxyWord(ctr.Name)
	if kind == "native sidecar" && word != "proxy" {
		word = "sidecar"
	}
	msg := fmt.Sprintf("%s %s has a preStop hook that shuts it down at once, %s: the kubelet runs it at the start of termination, %s, so the app keeps serving through a %s that is gone",
		kind, ctr.Name, what, meanwhile, word)
	fix := fmt.Sprintf("replace %s's preStop with a delay that outlasts the app's (lifecycle.preStop.sleep, or sleep before the quit), or drop it: a native sidecar without a hook is stopped after the app; Istio: terminationDrainDuration or EXIT_ON_ZERO_ACTIVE_CONNECTIONS, Linkerd: config.alpha.linkerd.io/proxy-wait-before-exit-seconds", ctr.Name)
	return []Finding{c.finding(w, ctr.Name, msg, fix)}
}
