package inspect

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/podspec"
	"github.com/kubectl-graceful/kubectl-graceful/internal/prestop"
)

// preStopDelayUnknown reports the preStop hooks of serving containers whose
// delay the spec does not tell (pkg/prestop: an exec command that is not a
// plain sleep, an httpGet hook), and the tcpSocket hooks kubelet never
// runs. Without it such hooks passed every check in silence: missing-prestop
// sees a hook, prestop-too-short sees no number to compare with the floor.
var preStopDelayUnknown = register(&Check{
	ID:       "prestop-delay-unknown",
	Field:    "containers[].lifecycle.preStop",
	Topic:    TopicTermination,
	Severity: SeverityInfo,
	Summary:  "preStop hook of a pod behind a Service whose delay the spec does not tell (exec that is not a plain sleep, httpGet), or a tcpSocket hook kubelet never runs: the audit cannot judge it against --prestop-floor",
	Needs:    []Input{InputServices},
	run: perServingContainer(func(s *scope, c *Check, w *Workload, svc corev1.Service, ctr corev1.Container) []Finding {
		grace := podspec.GracePeriod(w.Template.Spec)
		msg, sev := unknownDelayMessage(w, ctr, svc.Name, grace, s.opts.PreStopFloorSeconds)
		if msg == "" {
			return nil
		}
		fix := fmt.Sprintf("measure the hook: kubectl graceful watch pod NAME -n %s, while a pod is deleted, shows when its container stops; or make the delay explicit by starting the hook with sleep %d",
			w.Object.Namespace, max(s.opts.PreStopFloorSeconds, 1))
		if sev == SeverityWarning {
			fix = s.preStopFix(w, ctr, grace, 0)
		}
		f := c.finding(w, ctr.Name, msg, fix)
		f.Severity = sev
		return []Finding{f}
	}),
	Explanation: Explanation{
		Why: "The delay a preStop hook buys is what covers endpoint removal. A native sleep or an exec `sleep N` says how long it is; any other exec command (a script, a binary) and an httpGet hook last as long as they take, which only running them shows. " +
			"The audit then cannot say whether the delay reaches --prestop-floor, nor whether the hook ends inside the grace period, so it says so (info) instead of counting it as enough. " +
			"A tcpSocket hook is deprecated and not supported as a lifecycle handler: kubelet fails it at once, the container gets SIGTERM with no delay, as if it had no hook (warning).",
		Fix:    "Check how long the hook really takes (`kubectl graceful watch` shows the hook's Killing and the container's exit), or make the delay explicit: put a sleep of the floor or more before the hook's other work, or use lifecycle.preStop.sleep.seconds (1.30+). Replace a tcpSocket hook with a sleep.",
		Source: "k8s.io/api core/v1 LifecycleHandler (\"TCPSocket is NOT supported as a LifecycleHandler\"); kubelet lifecycle handlers (pkg/kubelet/lifecycle/handlers.go); " + srcEndpoints,
	},
})

// unknownDelayMessage says why ctr's preStop delay cannot be judged
// against floor (seconds), and at what severity; "" when it can. grace is
// the pod's grace period in seconds.
func unknownDelayMessage(w *Workload, ctr corev1.Container, svc string, grace, floor int64) (string, Severity) {
	d, known, how := hookDuration(w, ctr)
	switch {
	case how == prestop.HowTCPSocket:
		return fmt.Sprintf("behind Service %s, preStop is a tcpSocket hook, which kubelet does not run (not supported as a lifecycle handler): no delay, SIGTERM comes while endpoints still route to it", svc), SeverityWarning
	case how == prestop.HowExecScript && d < floor:
		return fmt.Sprintf("behind Service %s, preStop runs %s: it sleeps %d s among other commands, how long the rest takes is unknown, so whether the delay reaches --prestop-floor (%d s) cannot be told from the spec",
			svc, hookCommand(ctr.Lifecycle.PreStop), d, floor), SeverityInfo
	case known:
		return "", ""
	}
	return fmt.Sprintf("behind Service %s, preStop runs %s: its delay is unknown (whatever it takes; the spec does not say), so whether it reaches --prestop-floor (%d s) and ends within the grace period (%d s) cannot be told from the spec",
		svc, hookCommand(ctr.Lifecycle.PreStop), floor, grace), SeverityInfo
}

// maxQuotedCommand bounds (bytes) the hook text quoted in a message: a
// script in a manifest can be pages long.
const maxQuotedCommand = 160

// hookCommand describes a preStop hook as the manifest writes it, every
// string Go-quoted (control characters and quotes escaped) and the whole
// cut to maxQuotedCommand: exec ["sh", "-c", "..."] or httpGet :8080/drain.
func hookCommand(h *corev1.LifecycleHandler) string {
	switch {
	case h.Exec != nil:
		var b strings.Builder
		for i, a := range h.Exec.Command {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(a))
			if b.Len() > maxQuotedCommand {
				break
			}
		}
		return "exec [" + cut(b.String(), maxQuotedCommand) + "]"
	case h.HTTPGet != nil:
		g := h.HTTPGet
		return "httpGet " + cut(strconv.Quote(g.Host+":"+g.Port.String()+g.Path), maxQuotedCommand)
	}
	return "a hook"
}

// cut shortens s to at most n bytes at a rune boundary, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
