package preflight

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/podspec"
)

// unreadyCause is why a pod is not Ready and whether waiting can help.
type unreadyCause struct {
	// what names the cause: a crash-looping container, a readiness gate
	// with its condition, or containers not Ready.
	what string
	// wait says whether waiting can help.
	wait string
}

// whyUnready reads why pod is not Ready the way the kubelet decides it
// (pkg/kubelet/status GeneratePodReadyCondition): Ready needs every
// container Ready (ContainersReady) and the condition of every
// spec.readinessGates entry True. The kubelet never sets a gate's
// condition: whoever declared the gate does (a load balancer controller
// once the pod's target is healthy, for example), so a gate is named as
// such and never taken for a failing container.
func whyUnready(pod *corev1.Pod) unreadyCause {
	var notReady []string // none when the statuses are unknown
	for _, s := range pod.Status.ContainerStatuses {
		if w := s.State.Waiting; w != nil && w.Reason == "CrashLoopBackOff" {
			return unreadyCause{fmt.Sprintf("container %s is in CrashLoopBackOff after %d restart(s)", s.Name, s.RestartCount),
				"waiting will not help while it crash-loops"}
		}
		if !s.Ready {
			notReady = append(notReady, s.Name)
		}
	}
	if len(notReady) > 0 {
		return unreadyCause{"container(s) " + strings.Join(notReady, ", ") + " not Ready",
			"waiting helps only if they pass their readiness probes, and the drain cannot tell when"}
	}
	if gate, ok := closedGate(pod); ok {
		return unreadyCause{"held unready by readiness gate " + gate + ", not by its containers",
			"waiting helps only if whoever owns the gate (not the kubelet) sets it True, and the drain cannot tell when"}
	}
	return unreadyCause{"not Ready", "waiting helps only if it turns Ready, and the drain cannot tell when"}
}

// paren is " (CAUSE)" when the cause is known, else "".
func (c unreadyCause) paren() string {
	if c.what == "not Ready" {
		return ""
	}
	return " (" + c.what + ")"
}

// brief is ": CAUSE" when the cause is known, with what a crash loop means
// for waiting; "" when the status says no more than not Ready.
func (c unreadyCause) brief() string {
	switch {
	case c.what == "not Ready":
		return ""
	case strings.HasPrefix(c.wait, "waiting will not help"):
		return ": " + c.what + ", " + c.wait
	}
	return ": " + c.what
}

// closedGate describes the first readiness gate of pod whose condition is
// not True: "T (condition False, reason R: message)", or "T (condition not
// set)" when nobody set it yet, which the kubelet reads as False.
func closedGate(pod *corev1.Pod) (string, bool) {
	for _, g := range pod.Spec.ReadinessGates {
		c := podspec.Condition(pod, g.ConditionType)
		switch {
		case c == nil:
			return string(g.ConditionType) + " (condition not set)", true
		case c.Status != corev1.ConditionTrue:
			s := fmt.Sprintf("%s (condition %s", g.ConditionType, c.Status)
			if c.Reason != "" {
				s += ", reason " + c.Reason
			}
			if c.Message != "" {
				s += ": " + c.Message
			}
			return s + ")", true
		}
	}
	return "", false
}

// gatesOf lists the readiness gates of pods' specs, once each: their
// replacements turn Ready only once those conditions are True too.
func gatesOf(pods []*corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		for _, g := range p.Spec.ReadinessGates {
			if !slices.Contains(out, string(g.ConditionType)) {
				out = append(out, string(g.ConditionType))
			}
		}
	}
	return out
}
