package inspect

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/podspec"
	"github.com/kubectl-graceful/kubectl-graceful/internal/prestop"
)

// The timing budget. Facts (kubelet killContainer, pkg/kubelet/kuberuntime):
// the grace period starts before preStop runs and preStop time is counted
// inside it; a preStop still running at the deadline gets a one-off 2 s
// extension, then SIGKILL (exit code 137).

var prestopExceedsGrace = register(&Check{
	ID:       "prestop-exceeds-grace",
	Field:    "containers[].lifecycle.preStop",
	Topic:    TopicTermination,
	Severity: SeverityError,
	Summary:  "preStop takes as long as the grace period or longer: the kubelet abandons the hook at the deadline and the app gets SIGTERM then, with 2 s before SIGKILL",
	run:      perContainer(preStopExceedsGrace),
	Explanation: Explanation{
		Why:    "The grace period starts before preStop runs and preStop time is counted inside it. The kubelet waits for the hook no longer than the grace period; when it runs out, the kubelet abandons the hook and stops the container with its minimum grace of 2 s: the app gets SIGTERM only then, and SIGKILL (exit 137) 2 s later if it has not exited, cutting what is in flight. An app that finishes within those 2 s exits cleanly (seen on a real kubelet: SIGTERM at the deadline, exit 0). The kubelet then reports a FailedPreStopHook for the exec hook it cut short. A native sleep (lifecycle.preStop.sleep.seconds) longer than the grace period never gets that far: the API server refuses the pod or pod template on create and update (\"must be non-negative and less than terminationGracePeriodSeconds (N)\"), so the apply fails.",
		Fix:    "Set terminationGracePeriodSeconds to the preStop delay plus the app's shutdown time plus a margin, or shorten the preStop delay.",
		Source: srcKubelet,
	},
})

// preStopExceedsGrace says how ctr's preStop outlasts w's grace period,
// or returns "".
func preStopExceedsGrace(s *scope, w *Workload, ctr corev1.Container) (msg, fix string) {
	grace := podspec.GracePeriod(w.Template.Spec)
	d, known, how := hookDuration(w, ctr)
	if !known || how == prestop.HowNone || d < grace {
		return "", ""
	}
	msg = fmt.Sprintf("preStop (%s) takes %d s but the grace period is %d s: %s", how, d, grace, afterOrNever(d, grace))
	if how == prestop.HowNativeSleep && d > grace {
		msg = refusedSleepMessage(s.inv.Version, d, grace)
	}
	return msg, patchCommand(w, map[string]any{"terminationGracePeriodSeconds": d + 20})
}

// refusedSleepMessage says that the API server refuses a native sleep
// longer than the grace period (validateSleepAction,
// pkg/apis/core/validation): the object is never stored, so what the
// kubelet would do with it does not arise.
func refusedSleepMessage(v Version, d, grace int64) string {
	rule := "must be non-negative and less than terminationGracePeriodSeconds"
	if !v.AtLeast(1, 33) {
		rule = "must be greater than 0 and less than terminationGracePeriodSeconds"
	}
	return fmt.Sprintf("lifecycle.preStop.sleep.seconds is %d, more than the grace period of %d s: the API server refuses it (%q), so the apply fails",
		d, grace, fmt.Sprintf("%s (%d)", rule, grace))
}

// afterOrNever says what the kubelet does with a preStop of d seconds
// under a grace period of grace (d >= grace): it waits for the hook no
// longer than the grace period, then stops the container with at least
// 2 s (kuberuntime_container.go: executePreStopHook, killContainer's
// minimumGracePeriodInSeconds).
func afterOrNever(d, grace int64) string {
	if d == grace {
		return "the hook ends as the grace period does, so the app gets SIGTERM with only the kubelet's minimum of 2 s before SIGKILL (exit 137)"
	}
	return fmt.Sprintf("the kubelet abandons the hook when the grace period runs out, %d s before it would end, and only then sends SIGTERM, with its minimum of 2 s before SIGKILL (exit 137)", d-grace)
}

var shutdownBudgetExceedsGrace = register(&Check{
	ID:       "shutdown-budget-exceeds-grace",
	Field:    "spec.terminationGracePeriodSeconds",
	Topic:    TopicTermination,
	Severity: SeverityError,
	Summary:  "preStop plus the app's declared shutdown time is longer than the grace period: in-flight requests are cut by SIGKILL",
	run:      perContainer((*scope).shutdownBudget),
	Explanation: Explanation{
		Why:    "After preStop, the app needs time to finish in-flight requests after SIGTERM. preStop + that time must fit in the grace period, or the tail of the shutdown is cut by SIGKILL. Declare the app's time with the annotation " + ShutdownSecondsAnnotation + " on the pod template or --shutdown-seconds; without them " + fmt.Sprint(assumedShutdownSeconds) + " s is assumed for containers with a preStop hook.",
		Fix:    "Raise terminationGracePeriodSeconds to preStop + shutdown + a few seconds.",
		Source: srcKubelet,
	},
})

// shutdownSeconds returns the app's shutdown time (seconds) for w and
// whether it was declared (annotation or flag) rather than assumed.
func (s *scope) shutdownSeconds(w *Workload) (int64, string, bool) {
	if v, ok := w.Template.Annotations[ShutdownSecondsAnnotation]; ok {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
			return n, "declared in " + ShutdownSecondsAnnotation, true
		}
	}
	if s.opts.ShutdownSeconds != nil {
		return *s.opts.ShutdownSeconds, "from --shutdown-seconds", true
	}
	return assumedShutdownSeconds, fmt.Sprintf("assumed: set %s to declare it", ShutdownSecondsAnnotation), false
}

// shutdownBudget says how ctr's preStop plus the app's shutdown time
// outlasts w's grace period, or returns "".
func (s *scope) shutdownBudget(w *Workload, ctr corev1.Container) (msg, fix string) {
	grace := podspec.GracePeriod(w.Template.Spec)
	app, where, declared := s.shutdownSeconds(w)
	d, known, how := hookDuration(w, ctr)
	switch {
	case how == prestop.HowNone && !declared:
		// Without a preStop hook and a declared shutdown time there is
		// nothing but an assumption to compare: stay quiet.
		return "", ""
	case known && how != prestop.HowNone && d >= grace:
		return "", "" // prestop-exceeds-grace reports it
	}
	pre := fmt.Sprintf("preStop %d s", d)
	if !known {
		d = 0
		pre = fmt.Sprintf("preStop (%s) of unknown duration, counted as 0 s", how)
	}
	if d+app <= grace {
		return "", ""
	}
	return fmt.Sprintf("%s + app shutdown %d s (%s) = %d s, more than the grace period of %d s", pre, app, where, d+app, grace),
		patchCommand(w, map[string]any{"terminationGracePeriodSeconds": d + app + 5})
}

var gracePeriodZero = register(&Check{
	ID:       "grace-period-zero",
	Field:    "spec.terminationGracePeriodSeconds",
	Topic:    TopicTermination,
	Severity: SeverityError,
	Summary:  "terminationGracePeriodSeconds is 0: containers are killed with SIGKILL at once, no preStop, no graceful shutdown",
	run: onePerWorkload(func(_ *scope, w *Workload) (string, string) {
		if g := w.Template.Spec.TerminationGracePeriodSeconds; g == nil || *g != 0 {
			return "", ""
		}
		return "terminationGracePeriodSeconds is 0: SIGKILL at once, preStop hooks and SIGTERM handlers never run",
			patchCommand(w, map[string]any{"terminationGracePeriodSeconds": corev1.DefaultTerminationGracePeriodSeconds})
	}),
	Explanation: Explanation{
		Why:    "terminationGracePeriodSeconds: 0 means immediate SIGKILL: no preStop hook, no SIGTERM handler, every in-flight request is cut.",
		Fix:    "Remove the field (default 30 s) or set it to the preStop delay plus the shutdown time.",
		Source: srcKubelet,
	},
})

var gracePeriodLong = register(&Check{
	ID:       "grace-period-long",
	Field:    "spec.terminationGracePeriodSeconds",
	Topic:    TopicTermination,
	Severity: SeverityWarning,
	Summary:  "grace period above the threshold (default 300 s): node drains and rollouts can stall that long per pod",
	run: onePerWorkload(func(s *scope, w *Workload) (string, string) {
		g := podspec.GracePeriod(w.Template.Spec)
		if g <= s.opts.MaxGraceSeconds {
			return "", ""
		}
		return fmt.Sprintf("grace period is %d s, above %d s: a pod that does not exit by itself holds each drain or rollout step up to that long; it is not shutdown time a drainer that caps terminations grants (cluster-autoscaler: 600 s by default, --drainer-cap)", g, s.opts.MaxGraceSeconds),
			patchCommand(w, map[string]any{"terminationGracePeriodSeconds": s.opts.MaxGraceSeconds})
	}),
	Explanation: Explanation{
		Why:    "kubectl drain and rollouts wait for each pod's termination; a very long grace period stalls node maintenance and deploys that long per pod when the app does not exit by itself.",
		Fix:    "Lower terminationGracePeriodSeconds to what shutdown really needs, or raise the threshold with --max-grace if the long drain is intended.",
		Source: srcKubelet,
	},
})

// PodFindings returns the termination findings that need only the pod's
// own spec, with default options: prestop-exceeds-grace,
// shutdown-budget-exceeds-grace and grace-period-zero (errors) and
// sidecar-stops-first (warning). The drain command calls it before
// evicting a pod. Checks listed in the pod's SkipAnnotation are left out.
// The pod is reported as itself (kind Pod), whatever its owner.
func PodFindings(pod *corev1.Pod) []Finding {
	s, _ := podScope(pod)
	var out []Finding
	for _, c := range []*Check{prestopExceedsGrace, shutdownBudgetExceedsGrace, gracePeriodZero, sidecarStopsFirst} {
		for _, f := range c.run(s, c) {
			if !s.suppressed(f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// podScope is the scope of one pod audited as a workload of its own.
func podScope(pod *corev1.Pod) (*scope, *Workload) {
	one := int32(1)
	w := &Workload{
		Object:      ObjectRef{Kind: "Pod", Namespace: namespaceOf(pod.Namespace), Name: pod.Name},
		Annotations: pod.Annotations,
		Template:    corev1.PodTemplateSpec{ObjectMeta: pod.ObjectMeta, Spec: pod.Spec},
		Replicas:    &one,
	}
	return &scope{inv: &Inventory{Workloads: []*Workload{w}}, opts: DefaultOptions()}, w
}
