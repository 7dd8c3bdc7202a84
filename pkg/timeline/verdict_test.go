package timeline

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/watch"
)

func TestVerdictScenarios(t *testing.T) {
	web := []string{"web"}
	cases := []struct {
		name        string
		tl          *Timeline
		risk        bool
		endpointOut int64 // -1: none
		sigterm     int64 // -1: none
		window      int64 // only checked when endpointOut and sigterm are set
		finding     string
	}{
		{"naive, no preStop", terminate(t, 30, false, 0, web, 1000, 0, nil), true, 15, 20, 5, "no preStop delay"},
		{"preStop sleep 5, grace 45", terminate(t, 45, true, 5, web, 6000, 0, nil), false, 15, 5020, 5005, "window: SIGTERM came 5005 ms after"},
		{"ignores SIGTERM: 137 at the deadline", terminate(t, 5, true, 2, web, 5000, 137, nil), true, 15, 2020, 2005, "SIGKILLed (exit 137)"},
		{"preStop longer than grace", terminate(t, 5, true, 20, web, 5000, 137, nil), true, 15, 5020, 5005, "the kubelet abandons the hook when the grace period runs out and only then sends SIGTERM"},
		{"preStop longer than grace: exit 137 is a SIGKILL 2 s after it", terminate(t, 5, true, 20, web, 7020, 137, nil), true, 15, 5020, 5005, "SIGKILLed (exit 137)"},
		{"behind two Services", terminate(t, 30, true, 5, []string{"web", "web-internal"}, 6000, 0, nil), false, 15, 5020, 5005, "Services: web, web-internal"},
		{"behind none", terminate(t, 30, false, 0, nil, 1000, 0, nil), false, -1, 20, 0, "not behind any Service"},
		{"FailedPreStopHook", terminate(t, 30, true, 5, web, 1000, 0, func(r *Recorder) {
			r.feedEvent(at(25), kubeEvent("ev-fail", "Warning", "FailedPreStopHook", "PreStopHook failed", at(0)), false)
		}), true, 15, 25, 10, "failed at once"}, // SIGTERM at the hook's failure (real kubelet: just before it), not at Killing
		{"SIGTERM exit 143 with preStop", terminate(t, 30, true, 5, web, 5100, 143, nil), false, 15, 5020, 5005, "killed by SIGTERM"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := compute(c.tl)
			if v.Risk != c.risk {
				t.Errorf("risk = %v, want %v; findings:\n%s", v.Risk, c.risk, strings.Join(v.Findings, "\n"))
			}
			checkMs(t, "endpoint out", v.EndpointOutMs, c.endpointOut)
			checkMs(t, "SIGTERM", v.SigtermMs, c.sigterm)
			if c.endpointOut >= 0 && c.sigterm >= 0 && c.tl.Services != nil {
				checkMs(t, "window", v.WindowMs, c.window)
			}
			if !hasFinding(v, c.finding) {
				t.Errorf("no finding containing %q in:\n%s", c.finding, strings.Join(v.Findings, "\n"))
			}
		})
	}
}

func checkMs(t *testing.T, what string, got *int64, want int64) {
	t.Helper()
	switch {
	case want < 0 && got != nil:
		t.Errorf("%s = %d ms, want none", what, *got)
	case want >= 0 && got == nil:
		t.Errorf("%s = none, want %d ms", what, want)
	case want >= 0 && *got != want:
		t.Errorf("%s = %d ms, want %d ms", what, *got, want)
	}
}

// A SIGTERM estimated before the endpoint leaves its ready sets is a race
// window of the difference, whatever the preStop.
func TestVerdictRaceWindowWhenEndpointLate(t *testing.T) {
	pod := testPod(30, sleepHook(1))
	r := NewRecorder(pod, []string{"web"}, at(-100))
	r.feedSlice(at(-50), watch.Added, readySlice("web-abc", "web"))
	r.MarkT0(at(0), T0DeleteSent, "DELETE sent")
	r.feedPod(at(5), watch.Modified, deleting(pod, at(0)))
	r.feedEvent(at(10), kubeEvent("k", "Normal", "Killing", "Stopping container app", at(0)), false)
	r.feedSlice(at(2500), watch.Modified, terminatingSlice("web-abc", "web"))
	v := compute(r.TL)
	if !v.Risk || v.WindowMs == nil || *v.WindowMs != 1010-2500 {
		t.Fatalf("want a race window of 1490 ms, got risk=%v window=%v findings=%v", v.Risk, v.WindowMs, v.Findings)
	}
	if !hasFinding(v, "1490 ms BEFORE") {
		t.Errorf("findings do not give the race window: %v", v.Findings)
	}
}

// With two slices the endpoint is out only when it has left both.
func TestEndpointOutWaitsForEverySlice(t *testing.T) {
	pod := testPod(30, sleepHook(5))
	r := NewRecorder(pod, []string{"a", "b"}, at(-100))
	r.feedSlices(at(-90), []discoveryv1.EndpointSlice{*readySlice("a-1", "a"), *readySlice("b-1", "b")}, true)
	r.MarkT0(at(0), T0DeleteSent, "DELETE sent")
	r.feedSlice(at(12), watch.Modified, terminatingSlice("a-1", "a"))
	r.feedSlice(at(480), watch.Modified, terminatingSlice("b-1", "b"))
	v := compute(r.TL)
	checkMs(t, "endpoint out", v.EndpointOutMs, 480)
}

// An endpoint that becomes ready again is not out.
func TestEndpointBackInIsNotOut(t *testing.T) {
	pod := testPod(30, nil)
	r := NewRecorder(pod, []string{"a"}, at(-100))
	r.feedSlice(at(-90), watch.Added, readySlice("a-1", "a"))
	r.feedSlice(at(-50), watch.Modified, slice("a-1", "a", boolp(false), boolp(false), boolp(false)))
	r.feedSlice(at(-20), watch.Modified, readySlice("a-1", "a"))
	r.MarkT0(at(0), T0DeleteSent, "DELETE sent")
	v := compute(r.TL)
	checkMs(t, "endpoint out", v.EndpointOutMs, -1)
}

// Without Events, SIGTERM is estimated from the delete request.
func TestSigtermWithoutKillingUsesRequest(t *testing.T) {
	pod := testPod(30, sleepHook(3))
	r := NewRecorder(pod, nil, at(-100))
	r.TL.EventsUnseen = true
	r.MarkT0(at(0), T0DeleteSent, "DELETE sent")
	v := compute(r.TL)
	checkMs(t, "SIGTERM", v.SigtermMs, 3000)
	if !strings.Contains(v.SigtermBasisText, "no Killing event") {
		t.Errorf("basis %q does not say Killing was not seen", v.SigtermBasisText)
	}
}

// With two containers, the one told to stop first decides: a sidecar
// without preStop next to an app with one gets SIGTERM at Killing.
func TestVerdictEarliestContainerDecides(t *testing.T) {
	pod := testPod(30, sleepHook(5))
	pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: "proxy"})
	r := NewRecorder(pod, []string{"web"}, at(-100))
	r.feedSlice(at(-50), watch.Added, readySlice("web-abc", "web"))
	r.MarkT0(at(0), T0DeleteSent, "DELETE sent")
	r.feedSlice(at(15), watch.Modified, terminatingSlice("web-abc", "web"))
	app := kubeEvent("k1", "Normal", "Killing", "Stopping container app", at(0))
	proxy := kubeEvent("k2", "Normal", "Killing", "Stopping container proxy", at(0))
	proxy.InvolvedObject.FieldPath = "spec.containers{proxy}"
	r.feedEvent(at(20), app, false)
	r.feedEvent(at(22), proxy, false)
	v := compute(r.TL)
	checkMs(t, "SIGTERM", v.SigtermMs, 22)
	if !v.Risk {
		t.Errorf("a sidecar stopped 7 ms after the endpoint left is a risk; findings %v", v.Findings)
	}
}

// ExceededGracePeriod is a risk on its own.
func TestVerdictExceededGracePeriod(t *testing.T) {
	tl := terminate(t, 30, true, 5, []string{"web"}, 6000, 0, func(r *Recorder) {
		r.feedEvent(at(30000), kubeEvent("x", "Warning", "ExceededGracePeriod", "Container runtime did not kill the pod within specified grace period.", at(0)), false)
	})
	if v := compute(tl); !v.Risk || !hasFinding(v, "ExceededGracePeriod") {
		t.Errorf("findings %v", v.Findings)
	}
}
