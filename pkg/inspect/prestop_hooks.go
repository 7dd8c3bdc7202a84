package inspect

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/prestop"
)

// suggestedPreStopSeconds is the preStop delay (seconds) suggested to cover
// endpoint removal: the EndpointSlice update has to reach kube-proxy on
// every node, and ingress controllers and cloud load balancers after it.
const suggestedPreStopSeconds = 10

var missingPreStop = &Check{
	ID:       "missing-prestop",
	Severity: SeverityWarning,
	Summary:  "behind a Service with no preStop hook: SIGTERM races endpoint removal, the cause of a few 502s on every deploy",
	Needs:    []Input{InputServices},
	run: func(s *scope, c *Check) []Finding {
		return eachServingContainer(s, func(w *Workload, svc corev1.Service, ctr corev1.Container) *Finding {
			if hasPreStop(ctr) {
				return nil
			}
			grace := gracePeriod(w.Template.Spec)
			msg := fmt.Sprintf("behind Service %s with no preStop hook: it gets SIGTERM while endpoints still route to it (grace period %d s)",
				svc.Name, grace)
			f := c.finding(w, ctr.Name, msg, s.preStopFix(w, ctr, grace))
			return &f
		})
	},
}

// preStopFix suggests a preStop delay (native sleep where the server
// supports it, else exec sleep) and a grace period that leaves the app 20 s
// after it.
func (s *scope) preStopFix(w *Workload, ctr corev1.Container, grace int64) string {
	hook := map[string]any{"exec": map[string]any{"command": []string{"sleep", fmt.Sprint(suggestedPreStopSeconds)}}}
	if s.inv.Version.AtLeast(1, 30) {
		hook = map[string]any{"sleep": map[string]any{"seconds": suggestedPreStopSeconds}}
	}
	patch := containerPatch(ctr.Name, map[string]any{"lifecycle": map[string]any{"preStop": hook}})
	if want := int64(suggestedPreStopSeconds + 20); grace < want {
		patch["terminationGracePeriodSeconds"] = want
	}
	return patchCommand(w, patch)
}

var preStopTooShort = &Check{
	ID:       "prestop-too-short",
	Severity: SeverityInfo,
	Summary:  "preStop delay below the floor (default 5 s) for a pod behind a Service: endpoint removal may not have propagated yet",
	Needs:    []Input{InputServices},
	run: func(s *scope, c *Check) []Finding {
		return eachServingContainer(s, func(w *Workload, _ corev1.Service, ctr corev1.Container) *Finding {
			d, known, how := prestop.Duration(ctr)
			if !known || (how != prestop.HowNativeSleep && how != prestop.HowExecSleep) || d >= s.opts.PreStopFloorSeconds {
				return nil
			}
			msg := fmt.Sprintf("preStop sleeps %d s, below %d s: kube-proxy and load balancers may still route to the pod after it",
				d, s.opts.PreStopFloorSeconds)
			f := c.finding(w, ctr.Name, msg, s.preStopFix(w, ctr, gracePeriod(w.Template.Spec)))
			return &f
		})
	},
}

// noShellImagePatterns are substrings of image references whose images
// ship no shell and no sleep binary. One list, used by
// prestop-sleep-binary-missing; images tagged :debug (distroless debug
// variants ship busybox) are exempt.
var noShellImagePatterns = []string{
	"distroless",
	"chainguard/static",
	"cgr.dev/chainguard/static",
	"scratch",
	"-static:",
	"/static:",
	"/static-debian",
	"gcr.io/distroless/",
}

// noShellImage reports whether image matches noShellImagePatterns.
func noShellImage(image string) bool {
	img := strings.ToLower(image)
	if strings.Contains(img, ":debug") {
		return false
	}
	if !strings.Contains(img, ":") && !strings.Contains(img, "@") {
		img += ":"
	}
	if strings.HasSuffix(img, "-static:") || strings.Contains(img, "-static@") {
		return true
	}
	for _, p := range noShellImagePatterns {
		if strings.Contains(img, p) {
			return true
		}
	}
	return false
}

var preStopSleepBinaryMissing = &Check{
	ID:       "prestop-sleep-binary-missing",
	Severity: SeverityWarning,
	Summary:  "exec preStop calls sleep or a shell in an image that likely has neither (distroless, scratch, static): the hook fails",
	run: func(s *scope, c *Check) []Finding {
		return eachContainer(s, func(w *Workload, ctr corev1.Container) *Finding {
			if !hasPreStop(ctr) || ctr.Lifecycle.PreStop.Exec == nil {
				return nil
			}
			cmd := ctr.Lifecycle.PreStop.Exec.Command
			if !prestop.IsShellOrSleep(cmd) || !noShellImage(ctr.Image) {
				return nil
			}
			msg := fmt.Sprintf("preStop runs %q but image %s likely has no shell or sleep: the hook fails (only a FailedPreStopHook event shows it) and SIGTERM comes at once",
				cmd[0], ctr.Image)
			fix := "use the native sleep action: lifecycle: {preStop: {sleep: {seconds: N}}} (Kubernetes 1.30+)"
			if !s.inv.Version.AtLeast(1, 30) {
				fix = "add a static sleep binary to the image, or use an image variant with a shell (e.g. a :debug tag)"
			}
			f := c.finding(w, ctr.Name, msg, fix)
			return &f
		})
	},
}

var preferNativeSleep = &Check{
	ID:       "prefer-native-sleep",
	Severity: SeverityInfo,
	Summary:  "exec sleep in preStop where the server supports the native sleep action (1.30+): no shell or sleep binary needed",
	run: func(s *scope, c *Check) []Finding {
		if !s.inv.Version.AtLeast(1, 30) {
			return nil
		}
		return eachContainer(s, func(w *Workload, ctr corev1.Container) *Finding {
			d, _, how := prestop.Duration(ctr)
			if how != prestop.HowExecSleep || (d == 0 && !s.inv.Version.AtLeast(1, 33)) {
				return nil
			}
			msg := fmt.Sprintf("preStop execs a %d s sleep; Kubernetes %s supports lifecycle.preStop.sleep, which needs no binary in the image",
				d, versionOrNative(s.inv.Version))
			fix := patchCommand(w, containerPatch(ctr.Name, map[string]any{"lifecycle": map[string]any{"preStop": map[string]any{
				"exec": nil, "sleep": map[string]any{"seconds": d}}}}))
			f := c.finding(w, ctr.Name, msg, fix)
			return &f
		})
	},
}

// versionOrNative names the target version in messages ("1.30+" when it
// is unknown and taken as current).
func versionOrNative(v Version) string {
	if v.Major == 0 {
		return "1.30+"
	}
	return v.String()
}
