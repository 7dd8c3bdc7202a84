package inspect

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/internal/podspec"
	"github.com/kubectl-graceful/kubectl-graceful/internal/prestop"
)

var preStopSignalsPause = register(&Check{
	ID:       "prestop-signals-pause",
	Field:    "shareProcessNamespace, containers[].lifecycle.preStop",
	Topic:    TopicTermination,
	Severity: SeverityError,
	Summary:  "in a pod that shares its process namespace, a preStop `kill 1` signals the pod's pause process, not the app: SIGTERM or SIGINT ends every container at once, any other signal does nothing",
	run:      perStoppedContainer(pauseSignalFinding),
	Explanation: Explanation{
		Why: "With shareProcessNamespace: true the containers of a pod share one PID namespace whose PID 1 is the pod's pause (sandbox) process, not a container's entrypoint. A preStop `kill 1` written for a container of its own then signals pause. " +
			"pause exits on SIGTERM and SIGINT; when a PID namespace's init exits the kernel kills every other process in it with SIGKILL, so every container dies at once at the start of the hook (exit 137, long before the grace deadline), none gets SIGTERM, in-flight requests fail, and the rest of the hook never runs. " +
			"pause handles no other signal, and a namespace's init gets only the signals it handles (SIGKILL and SIGSTOP included), so `kill -QUIT 1`, `kill -HUP 1` or `kill -9 1` do nothing: the app keeps serving until the kubelet's SIGTERM after the hook. " +
			"Tried on this project's real nodes (docs/real-node.md): `kill -TERM 1` in one container's preStop ended both containers of the pod 1 s after the delete, the app with exit 137 and no SIGTERM in its own log.",
		Fix:    "Let the kubelet stop the app: a preStop sleep (lifecycle.preStop.sleep) and SIGTERM after it. To signal the app from a hook, name its process (kill -QUIT $(cat /run/app.pid)), or drop shareProcessNamespace.",
		Source: "Kubernetes docs, \"Share Process Namespace between Containers in a Pod\" (kill -HUP 1 signals the pod sandbox); github.com/kubernetes/kubernetes/blob/master/build/pause/linux/pause.c (handlers for SIGINT, SIGTERM and SIGCHLD only); man7.org/linux/man-pages/man7/pid_namespaces.7.html (the init process gets only the signals it handles, and its end SIGKILLs the namespace)",
	},
})

// hookDuration reads ctr's preStop as prestop.DurationInPod does in w's
// pod: where the pod shares its process namespace, a hook's `kill -SIG 1`
// signals the pause process, not the app.
func hookDuration(w *Workload, ctr corev1.Container) (seconds int64, known bool, how string) {
	return prestop.DurationInPod(ctr, sharesPID(w))
}

// sharesPID reports whether w's pod shares one process namespace
// (shareProcessNamespace: true).
func sharesPID(w *Workload) bool { return ptr.Deref(w.Template.Spec.ShareProcessNamespace, false) }

// perStoppedContainer is the run of a check with at most one finding per
// container the kubelet stops (podspec.TerminatingContainers, all): f
// says it for ctr.
func perStoppedContainer(f func(c *Check, w *Workload, ctr corev1.Container, all []corev1.Container) (Finding, bool)) runFunc {
	return perWorkload(func(s *scope, c *Check, w *Workload) []Finding {
		var out []Finding
		all := podspec.TerminatingContainers(w.Template.Spec)
		for _, ctr := range all {
			if fd, ok := f(c, w, ctr, all); ok {
				out = append(out, fd)
			}
		}
		return out
	})
}

// pauseSignalFinding is the finding for ctr's exec preStop when it
// signals PID 1.
func pauseSignalFinding(c *Check, w *Workload, ctr corev1.Container, _ []corev1.Container) (Finding, bool) {
	stmt, sig := prestop.PauseSignal(ctr, sharesPID(w))
	if stmt == "" {
		return Finding{}, false
	}
	head := fmt.Sprintf("the pod shares its process namespace (shareProcessNamespace: true), so PID 1 is the pod's pause process, not %s: preStop's %q", ctr.Name, cut(stmt, maxQuotedCommand))
	if prestop.EndsPause(sig) {
		msg := head + " ends pause, and the kernel then kills every process of every container with SIGKILL at once: no container gets SIGTERM, in-flight requests fail, and the rest of the hook never runs"
		return c.finding(w, ctr.Name, msg, "use a preStop sleep and let the kubelet's SIGTERM stop the app, or signal the app's own pid"), true
	}
	msg := head + fmt.Sprintf(" does nothing: pause handles only SIGTERM and SIGINT, and a namespace's init gets no other signal (SIG%s included), so the app is not told to stop by this hook", sig)
	f := c.finding(w, ctr.Name, msg, fmt.Sprintf("signal the app's own pid (kill -%s $(cat /run/app.pid)), or drop shareProcessNamespace", sig))
	f.Severity = SeverityWarning
	return f, true
}
