package inspect

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/prestop"
)

// A container with ports and a shorter preStop than the app's is stopped
// first on purpose, or by mistake: only whether the app reaches it inside
// the pod tells (the pod serves as one machine). The spec shows
// two such paths: a localhost upstream (the app's command, args or env name
// 127.0.0.1, localhost or [::1] with one of the container's ports) and a
// Unix socket (a path ending in .sock under a volume both mount). Where it
// shows neither, the check says it cannot tell.

// ownsPorts reports whether ctr is a container whose early stop only
// matters when the app reaches it: no proxy, it declares ports and has a
// preStop of its own.
func ownsPorts(w *Workload, ctr corev1.Container) bool {
	_, _, how := hookDuration(w, ctr)
	return len(ctr.Ports) > 0 && how != prestop.HowNone && !isProxy(ctr.Name)
}

// dependsOn returns how app reaches ctr inside the pod, as the spec shows
// it ("at localhost:9000", "through the socket ... on volume ..."): a
// localhost address with one of ctr's ports, or a socket file on a volume
// both mount; "" when it shows neither.
func dependsOn(app, ctr corev1.Container) string {
	words := containerWords(app)
	for _, p := range ctr.Ports {
		port := strconv.Itoa(int(p.ContainerPort))
		for _, host := range []string{"localhost:", "127.0.0.1:", "[::1]:"} {
			for _, w := range words {
				if i := strings.Index(w, host+port); i >= 0 && !digitAt(w, i+len(host+port)) {
					return "at " + host + port
				}
			}
		}
	}
	for _, am := range app.VolumeMounts {
		for _, cm := range ctr.VolumeMounts {
			if am.Name != cm.Name {
				continue
			}
			for _, w := range words {
				if sock := socketUnder(w, am.MountPath); sock != "" {
					return "through the socket " + sock + " on volume " + am.Name
				}
			}
		}
	}
	return ""
}

// containerWords are the words of a container's command, args and env
// values, split at spaces, quotes, '=' and ';'.
func containerWords(c corev1.Container) []string {
	all := append(append([]string{}, c.Command...), c.Args...)
	for _, e := range c.Env {
		all = append(all, e.Value)
	}
	var out []string
	for _, s := range all {
		out = append(out, strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(" \t\n\"'=;,", r) })...)
	}
	return out
}

func digitAt(s string, i int) bool { return i < len(s) && s[i] >= '0' && s[i] <= '9' }

// socketUnder returns the socket path in w ("unix:/run/php/fpm.sock" or a
// bare path) when it ends in .sock and lies under dir.
func socketUnder(w, dir string) string {
	p := strings.TrimPrefix(w, "unix:")
	if !strings.HasSuffix(p, ".sock") || !strings.HasPrefix(path.Clean(p), path.Clean(dir)+"/") {
		return ""
	}
	return p
}

// cannotTellDependency is the info finding for a container with ports
// that stops before the app's preStop ends (why) when the spec shows no
// path from the app to it.
func cannotTellDependency(c *Check, w *Workload, ctr corev1.Container, app *appDelay, why string) Finding {
	msg := fmt.Sprintf("container %s %s, and serves ports of its own: whether %s reaches it inside the pod (localhost, a socket) the spec does not show, so the audit cannot tell whether %s's last requests go through a container that is stopping",
		ctr.Name, why, app.spec.Name, app.spec.Name)
	f := c.finding(w, ctr.Name, msg, fmt.Sprintf("if %s uses %s, give %s a preStop at least as long as %s's (or make it a native sidecar); watch a deletion (kubectl graceful watch pod NAME) to see the order", app.spec.Name, ctr.Name, ctr.Name, app.spec.Name))
	f.Severity = SeverityInfo
	return f
}
