package inspect

import (
	"cmp"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/podspec"
	"github.com/kubectl-graceful/kubectl-graceful/internal/prestop"
)

// suggestedPreStopSeconds is the preStop delay (seconds) suggested to cover
// endpoint removal: the EndpointSlice update has to reach kube-proxy on
// every node, and ingress controllers and cloud load balancers after it.
const suggestedPreStopSeconds = 10

var missingPreStop = register(&Check{
	ID:       "missing-prestop",
	Field:    "containers[].lifecycle.preStop",
	Topic:    TopicTermination,
	Severity: SeverityWarning,
	Summary:  "behind a Service with no preStop hook: SIGTERM races endpoint removal, the cause of a few 502s on every deploy",
	Needs:    []Input{InputServices},
	run: perServingContainer(func(s *scope, c *Check, w *Workload, svc corev1.Service, ctr corev1.Container) []Finding {
		if hasPreStop(ctr) {
			return nil
		}
		grace := podspec.GracePeriod(w.Template.Spec)
		msg := fmt.Sprintf("behind Service %s with no preStop hook: it gets SIGTERM while endpoints still route to it (grace period %d s)",
			svc.Name, grace)
		floor, why := s.preStopFloor(w)
		if why != "" {
			msg += "; " + why
		}
		return []Finding{s.preStopFinding(c, w, ctr, msg, floor, why != "")}
	}),
	Explanation: Explanation{
		Why:    "When a pod is deleted, kubelet sends SIGTERM while the EndpointSlice controller, kube-proxy on every node, ingress controllers and cloud load balancers are still removing the pod's endpoint. Requests keep arriving at a process that is shutting down: a few 502s/connection resets on every deploy or drain.",
		Fix:    "Add a preStop delay so the endpoint is gone before SIGTERM: lifecycle.preStop.sleep.seconds: 10 (Kubernetes 1.30+) or exec [\"sleep\",\"10\"], and keep terminationGracePeriodSeconds above the delay plus the app's shutdown time.",
		Source: srcEndpoints,
	},
})

// preStopFinding is a missing-prestop or prestop-too-short finding on
// ctr, whose fix asks for floor seconds of delay (preStopFloor); raised
// says an Ingress controller asks for it (Finding.PreStopSeconds).
func (s *scope) preStopFinding(c *Check, w *Workload, ctr corev1.Container, msg string, floor int64, raised bool) Finding {
	f := c.finding(w, ctr.Name, msg, s.preStopFix(w, ctr, podspec.GracePeriod(w.Template.Spec), floor))
	if raised {
		f.PreStopSeconds = floor
	}
	return f
}

// preStopFix suggests a preStop delay of suggestedPreStopSeconds, or
// floor (seconds) where longer (native sleep where the server supports
// it, else exec sleep), and a grace period that leaves the app 20 s after
// it.
func (s *scope) preStopFix(w *Workload, ctr corev1.Container, grace, floor int64) string {
	delay := max(int64(suggestedPreStopSeconds), floor)
	hook := map[string]any{"exec": map[string]any{"command": []string{"sleep", fmt.Sprint(delay)}}}
	if s.inv.Version.AtLeast(1, 30) {
		hook = map[string]any{"sleep": map[string]any{"seconds": delay}}
	}
	patch := containerPatch(ctr.Name, map[string]any{"lifecycle": map[string]any{"preStop": hook}})
	if want := delay + 20; grace < want {
		patch["terminationGracePeriodSeconds"] = want
	}
	return patchCommand(w, patch)
}

var preStopTooShort = register(&Check{
	ID:       "prestop-too-short",
	Field:    "containers[].lifecycle.preStop",
	Topic:    TopicTermination,
	Severity: SeverityInfo,
	Summary:  "preStop delay below the floor (default 5 s) for a pod behind a Service: endpoint removal may not have propagated yet",
	Needs:    []Input{InputServices},
	run: perServingContainer(func(s *scope, c *Check, w *Workload, _ corev1.Service, ctr corev1.Container) []Finding {
		d, known, how := hookDuration(w, ctr)
		floor, why := s.preStopFloor(w)
		if !known || (how != prestop.HowNativeSleep && how != prestop.HowExecSleep) || d >= floor {
			return nil
		}
		why = cmp.Or(why, "kube-proxy and load balancers may still route to the pod after it")
		msg := fmt.Sprintf("preStop sleeps %d s, below %d s: %s", d, floor, why)
		return []Finding{s.preStopFinding(c, w, ctr, msg, floor, floor > s.opts.PreStopFloorSeconds)}
	}),
	Explanation: Explanation{
		Why: "Endpoint removal has to reach kube-proxy on every node and any load balancer; a delay of a second or two is often shorter than that propagation in busy clusters. " +
			"An Ingress controller sends to pods itself and takes its own time to drop one (ingress-nginx up to about 5 s, Istio's gateway up to 10 s by their defaults): where the IngressClass of an Ingress routing to the pods names a controller whose time is known and longer than the floor, that time is the floor.",
		Fix:    "Raise the preStop sleep to at least the floor (default 5 s, --prestop-floor, or the Ingress controller's time the finding names), within the grace period.",
		Source: srcEndpoints + "; kubernetes/ingress-nginx pkg/flags/flags.go (--sync-rate-limit), istio/istio pilot/pkg/features/tuning.go (PILOT_DEBOUNCE_MAX) and the others in docs/ingress.md",
	},
})

var preStopSleepBinaryMissing = register(&Check{
	ID:       "prestop-sleep-binary-missing",
	Field:    "containers[].lifecycle.preStop",
	Topic:    TopicTermination,
	Severity: SeverityWarning,
	Summary:  "exec preStop calls sleep or a shell in an image that likely has neither (distroless, scratch, static): the hook fails",
	run: perContainer(func(s *scope, _ *Workload, ctr corev1.Container) (string, string) {
		if !hasPreStop(ctr) || ctr.Lifecycle.PreStop.Exec == nil {
			return "", ""
		}
		cmd := ctr.Lifecycle.PreStop.Exec.Command
		if !prestop.IsShellOrSleep(cmd) || !prestop.LacksShell(ctr.Image) {
			return "", ""
		}
		msg := fmt.Sprintf("preStop runs %q but image %s likely has no shell or sleep: the hook fails (only a FailedPreStopHook event shows it) and SIGTERM comes at once",
			cmd[0], ctr.Image)
		fix := "use the native sleep action: lifecycle: {preStop: {sleep: {seconds: N}}} (Kubernetes 1.30+)"
		if !s.inv.Version.AtLeast(1, 30) {
			fix = "add a static sleep binary to the image, or use an image variant with a shell (e.g. a :debug tag)"
		}
		return msg, fix
	}),
	Explanation: Explanation{
		Why:    "Distroless, scratch and static images have no shell and no sleep binary. An exec preStop calling them fails at once; the only trace is a FailedPreStopHook event, and the container gets SIGTERM without the intended delay.",
		Fix:    "Use the native lifecycle.preStop.sleep action (1.30+), ship a static sleep binary, or use a :debug variant that has busybox.",
		Source: "KEP-3960 (PodLifecycleSleepAction); kubelet lifecycle handlers (pkg/kubelet/lifecycle/handlers.go)",
	},
})

var preferNativeSleep = register(&Check{
	ID:       "prefer-native-sleep",
	Field:    "containers[].lifecycle.preStop",
	Topic:    TopicTermination,
	Severity: SeverityInfo,
	Summary:  "exec sleep in preStop where the server supports the native sleep action (1.30+): no shell or sleep binary needed",
	run: perContainer(func(s *scope, w *Workload, ctr corev1.Container) (string, string) {
		d, _, how := hookDuration(w, ctr)
		if !s.inv.Version.AtLeast(1, 30) || how != prestop.HowExecSleep || (d == 0 && !s.inv.Version.AtLeast(1, 33)) {
			return "", ""
		}
		return fmt.Sprintf("preStop execs a %d s sleep; Kubernetes %s supports lifecycle.preStop.sleep, which needs no binary in the image", d, versionOr(s.inv.Version, "1.30+")),
			patchCommand(w, containerPatch(ctr.Name, map[string]any{"lifecycle": map[string]any{"preStop": map[string]any{
				"exec": nil, "sleep": map[string]any{"seconds": d}}}}))
	}),
	Explanation: Explanation{
		Why:    "lifecycle.preStop.sleep needs no binary in the image and is not subject to exec failures. It is beta and on by default from 1.30 and GA in 1.34; sleep seconds: 0 is allowed from 1.33.",
		Fix:    "Replace exec [\"sleep\",\"N\"] with sleep: {seconds: N}.",
		Source: "KEP-3960 (PodLifecycleSleepAction), KEP-4818 (zero-second sleep)",
	},
})

var preStopStopsServerFirst = register(&Check{
	ID:       "prestop-stops-server-first",
	Field:    "containers[].lifecycle.preStop",
	Topic:    TopicTermination,
	Severity: SeverityWarning,
	Summary:  "preStop stops the server (nginx -s quit, kill 1, a curl to /quitquitquit, Caddy's /stop, Envoy's /drain_listeners) before or without a sleep: the listener closes while the pod is still an endpoint",
	Needs:    []Input{InputServices},
	run: perServingContainer(func(s *scope, c *Check, w *Workload, svc corev1.Service, ctr corev1.Container) []Finding {
		d, _, how := hookDuration(w, ctr)
		if how != prestop.HowExecStopsFirst {
			return nil
		}
		stop := prestop.StopCommand(ctr.Lifecycle.PreStop.Exec.Command)
		if kill, _ := prestop.PauseSignal(ctr, sharesPID(w)); kill == stop {
			return nil // PID 1 is pause, not the server: prestop-signals-pause
		}
		when := "at the start of the hook"
		if d > 0 {
			when = fmt.Sprintf("%d s into the hook", d)
		}
		msg := fmt.Sprintf("behind Service %s, preStop runs %s: it stops the server %s (%q), so the listener closes while the pod is still an endpoint; nothing after it delays that (delay counted: %d s)",
			svc.Name, hookCommand(ctr.Lifecycle.PreStop), when, cut(stop, maxQuotedCommand), d)
		fix := fmt.Sprintf("sleep first, then stop: sh -c \"sleep %d; %s\", or a preStop sleep alone and let SIGTERM stop the server",
			suggestedPreStopSeconds, cut(stop, maxQuotedCommand))
		return []Finding{c.finding(w, ctr.Name, msg, fix)}
	}),
	Explanation: Explanation{
		Why: "A preStop script runs in order. A command that stops the server (nginx -s quit or stop, kill 1, apachectl graceful-stop, haproxy -sf, a curl to a quit, stop or shutdown path such as Caddy's admin :2019/stop, Envoy's /drain_listeners without its graceful drain period) before any sleep, or with one after it, closes the listener at the start of the hook, while the EndpointSlice, kube-proxy and load balancers still send the pod requests: they are refused (a proxy answers 503). A sleep after it delays nothing that matters, and often never runs (the container ends with its server). " +
			"The audit, --fix and the watch count only the sleeps before such a command as the hook's delay.",
		Fix:    "Sleep first, then stop the server (sh -c \"sleep 10; nginx -s quit\"), or use a preStop sleep alone and let the kubelet's SIGTERM stop the server.",
		Source: "kubelet runs the preStop hook to completion before SIGTERM (pkg/kubelet/kuberuntime/kuberuntime_container.go killContainer); " + srcEndpoints + "; reported in decocms/studio#4608 and the Kubernetes documentation's lifecycle example (nginx -s quit, then wait)",
	},
})
