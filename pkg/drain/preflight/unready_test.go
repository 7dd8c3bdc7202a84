package preflight

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
)

// lbGate is the readiness gate the AWS Load Balancer Controller injects.
const lbGate = "target-health.elbv2.k8s.aws/k8s-shop-web-0123456789"

// gated is pod with lbGate declared and its containers Ready; condition is
// the gate's condition (nil: not set yet). Ready is False, as the kubelet
// computes it while a gate is not True.
func gated(pod corev1.Pod, condition *corev1.PodCondition) corev1.Pod {
	pod.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: lbGate}}
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Ready: true}}
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ReadinessGatesNotReady"},
		{Type: corev1.ContainersReady, Status: corev1.ConditionTrue}}
	if condition != nil {
		pod.Status.Conditions = append(pod.Status.Conditions, *condition)
	}
	return pod
}

var registering = &corev1.PodCondition{Type: lbGate, Status: corev1.ConditionFalse,
	Reason: "Elb.RegistrationInProgress", Message: "Target registration is in progress"}

func TestWhyUnready(t *testing.T) {
	web := rsPod("web-1-a", "web-1", "web", "node-a", false)
	looping := web
	looping.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", RestartCount: 7,
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}}}
	probing := web
	probing.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app"}, {Name: "proxy", Ready: true}}
	gatedProbing := gated(probing, registering)
	gatedProbing.Status.ContainerStatuses = probing.Status.ContainerStatuses
	for _, c := range []struct {
		name       string
		pod        corev1.Pod
		what, wait string
	}{
		{"gate False", gated(web, registering), "held unready by readiness gate " + lbGate +
			" (condition False, reason Elb.RegistrationInProgress: Target registration is in progress), not by its containers",
			"waiting helps only if whoever owns the gate (not the kubelet) sets it True"},
		{"gate not set yet", gated(web, nil), "held unready by readiness gate " + lbGate + " (condition not set)", "waiting helps only if"},
		{"crash loop", looping, "container app is in CrashLoopBackOff after 7 restart(s)", "waiting will not help while it crash-loops"},
		{"readiness probe", probing, "container(s) app not Ready", "waiting helps only if they pass their readiness probes"},
		{"containers first, then the gate", gatedProbing, "container(s) app not Ready", "waiting helps only if they pass"},
		{"nothing known", web, "not Ready", "waiting helps only if it turns Ready"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := whyUnready(&c.pod)
			if !strings.HasPrefix(got.what, c.what) || !strings.HasPrefix(got.wait, c.wait) {
				t.Errorf("whyUnready = %+v, want what %q, wait %q", got, c.what, c.wait)
			}
		})
	}
}

// A pod held unready by a load balancer's target-health gate is named as
// such, gate, status and reason, in both budget blockers, and never called
// crash-looping; the waves of a budget over gated pods say they wait for
// the gate too.
func TestPreflightNamesReadinessGates(t *testing.T) {
	here := gated(rsPod("web-1-a", "web-1", "web", "node-a", false), registering)
	ready := rsPod("web-1-b", "web-1", "web", "node-a", true)
	elsewhere := gated(rsPod("web-1-c", "web-1", "web", "node-b", false), registering)
	r := preflightOf(t, input([]corev1.Pod{here, ready, elsewhere},
		[]policyv1.PodDisruptionBudget{maxUnavailableOne(3, 1, policyv1.IfHealthyBudget)}, node("node-b", false)))
	want := "held unready by readiness gate " + lbGate + " (condition False, reason Elb.RegistrationInProgress"
	for _, kind := range []IssueKind{BlockerUnreadyPod, BlockerPDBHeldByUnready} {
		b := has(r.Blockers, kind)
		if b == nil || !strings.Contains(b.Message, want) || strings.Contains(b.Message, "crash") {
			t.Errorf("%s = %+v, want it to name the gate (%q), never a crash loop", kind, b, want)
		}
	}

	gatedReady := func(name, nodeName string) corev1.Pod {
		p := rsPod(name, "web-1", "web", nodeName, true)
		p.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: lbGate}}
		return p
	}
	pods := []corev1.Pod{gatedReady("web-1-a", "node-a"), gatedReady("web-1-b", "node-a"), gatedReady("web-1-c", "node-b")}
	r = preflightOf(t, input(pods, []policyv1.PodDisruptionBudget{pdb("web", "web", 1, 3, 2, 3)}, node("node-b", false)))
	w := has(r.Warnings, WarningPDBSequential)
	if w == nil || !strings.Contains(w.Message, "readiness gate(s) "+lbGate+", set by whoever owns them, not the kubelet") {
		t.Errorf("%s = %+v, want the waves to wait for the gate", WarningPDBSequential, w)
	}
}
