package timeline

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/probe"
)

// realTermination plays a termination as a real kubelet reports it, with
// the moments given in ms since the delete request: the endpoint turns
// terminating at endpointOut, Killing arrives at killing, the hook (if
// any) fails at hookFailed (0: no such event), the exit is reported at
// exitMs with code.
func realTermination(t *testing.T, grace int64, hook *corev1.LifecycleHandler, endpointOut, killing, hookFailed, exitMs int64, code int32) *Timeline {
	t.Helper()
	pod := testPod(grace, hook)
	r, del := deletedPod(pod)
	steps := []struct {
		ms int64
		do func()
	}{
		{endpointOut, func() { r.feedSlice(at(endpointOut), watch.Modified, terminatingSlice("web-abc", "web")) }},
		{killing, func() {
			r.feedEvent(at(killing), kubeEvent("ev-kill", "Normal", "Killing", "Stopping container app", at(0)), false)
		}},
	}
	if hookFailed > 0 {
		steps = append(steps, struct {
			ms int64
			do func()
		}{hookFailed, func() {
			r.feedEvent(at(hookFailed), kubeEvent("ev-fail", "Warning", "FailedPreStopHook", "PreStopHook failed", at(0)), false)
		}})
	}
	for len(steps) > 0 { // in receive order
		i := 0
		for j := range steps {
			if steps[j].ms < steps[i].ms {
				i = j
			}
		}
		steps[i].do()
		steps = append(steps[:i], steps[i+1:]...)
	}
	r.feedPod(at(exitMs), watch.Modified, exited(del, code, at(exitMs-200)))
	r.feedSlice(at(exitMs+10), watch.Modified, slice("web-abc", "web", nil, nil, nil))
	r.feedPod(at(exitMs+20), watch.Deleted, exited(del, code, at(exitMs-200)))
	return r.TL
}

func execHook(cmd ...string) *corev1.LifecycleHandler {
	return &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: cmd}}
}

// Without a preStop SIGTERM is known only to lie between the request and
// eventLead after the Killing Event arrived (on a busy API server the Event
// arrives late: 148 ms in a CI run; on a real node the signal came 94 ms
// after it), or the exit when that is earlier: an endpoint leaving inside
// that gets no sign, and a race is claimed only when it left after the
// latest bound.
func TestSigtermBoundsWithoutPreStop(t *testing.T) {
	for _, c := range []struct {
		name              string
		endpointOut, kill int64
		want, notWant     string
	}{
		{"Killing 19 ms after the endpoint left", 20, 39, "SIGTERM came between +0 and +289 ms", "SIGTERM came 19 ms after"},
		{"Killing 30 ms before the endpoint left", 50, 20, "the order cannot be told from the API", "race window"},
		{"Killing 200 ms after: still inside the bounds", 20, 220, "the order cannot be told from the API", "SIGTERM came 200 ms after"},
		{"Killing 150 ms before: inside the bounds", 170, 20, "the order cannot be told from the API", "race window"},
		{"Killing 300 ms before: a race the API shows", 320, 20, "race window: container app was told to stop 300 ms BEFORE", "cannot be told"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := compute(realTermination(t, 30, nil, c.endpointOut, c.kill, 0, 900, 0))
			all := strings.Join(v.Findings, "\n")
			if !v.Risk || !strings.Contains(all, c.want) || strings.Contains(all, c.notWant) {
				t.Errorf("risk %v; want %q and not %q in:\n%s", v.Risk, c.want, c.notWant, all)
			}
			if v.SigtermEarliestMs == nil || *v.SigtermEarliestMs != 0 || v.SigtermLatestMs == nil || *v.SigtermLatestMs != c.kill+eventLead.Milliseconds() {
				t.Errorf("bounds %v..%v, want 0..%d", v.SigtermEarliestMs, v.SigtermLatestMs, c.kill+eventLead.Milliseconds())
			}
		})
	}
	// The process ends after SIGTERM: an exit reported at +200 ms caps the
	// bound eventLead would give.
	if v := compute(realTermination(t, 30, nil, 20, 39, 0, 200, 0)); *v.SigtermLatestMs != 200 {
		t.Errorf("exit at +200 ms: latest bound %d, want 200", *v.SigtermLatestMs)
	}
	// With a preStop delay SIGTERM is at least the delay after the
	// request: an endpoint that left at once is surely before it. The
	// kubelet sends it when the hook ends, late if the kubelet is: the
	// exit reported at +5200 ms is the latest bound.
	v := compute(realTermination(t, 30, sleepHook(5), 20, 30, 0, 5200, 0))
	if v.Risk || *v.SigtermEarliestMs != 5000 || *v.SigtermLatestMs != 5200 {
		t.Errorf("preStop 5 s: bounds %d..%d, risk %v:\n%s", *v.SigtermEarliestMs, *v.SigtermLatestMs, v.Risk, strings.Join(v.Findings, "\n"))
	}
}

// A kubelet stopped inside a 5 s sleep hook ends it, and sends SIGTERM,
// only when it runs again (2.3 s late on the real node): the exit reported
// at +7900 ms is SIGTERM's latest bound, and the verdict says the estimate
// is uncertain by that much and why, without calling it a risk.
func TestLateExitWidensSigtermAfterADelay(t *testing.T) {
	v := compute(realTermination(t, 30, sleepHook(5), 20, 30, 0, 7900, 0))
	all := strings.Join(v.Findings, "\n")
	if v.Risk || *v.SigtermEarliestMs != 5000 || *v.SigtermLatestMs != 7900 || !strings.Contains(all, "SIGTERM uncertain by 2870 ms") {
		t.Errorf("bounds %d..%d, risk %v:\n%s", *v.SigtermEarliestMs, *v.SigtermLatestMs, v.Risk, all)
	}
	// An endpoint that left after the spec's SIGTERM is a race the API
	// shows; a late exit does not turn it into "cannot tell".
	v = compute(realTermination(t, 30, sleepHook(1), 2500, 30, 0, 3000, 0))
	if *v.SigtermLatestMs != 1030+eventLead.Milliseconds() || !strings.Contains(strings.Join(v.Findings, "\n"), "race window") {
		t.Errorf("bounds %d..%d:\n%s", *v.SigtermEarliestMs, *v.SigtermLatestMs, strings.Join(v.Findings, "\n"))
	}
}

// A kubelet restarted 1 s into a 5 s sleep hook writes Killing again
// (here at +3000 ms) and runs the hook anew: SIGTERM is estimated from the
// second Killing, and bounded from the first hook's end to the second's.
func TestSecondKillingRestartsTheHook(t *testing.T) {
	pod := testPod(30, sleepHook(5))
	r, del := deletedPod(pod)
	r.feedSlice(at(20), watch.Modified, terminatingSlice("web-abc", "web"))
	r.feedEvent(at(30), kubeEvent("ev-kill", "Normal", "Killing", "Stopping container app", at(0)), false)
	r.feedEvent(at(3000), kubeEvent("ev-kill2", "Normal", "Killing", "Stopping container app", at(3)), false)
	r.feedPod(at(8200), watch.Modified, exited(del, 0, at(8100)))
	r.feedPod(at(8220), watch.Deleted, exited(del, 0, at(8100)))
	v := compute(r.TL)
	if v.SigtermMs == nil || *v.SigtermMs != 8000 || *v.SigtermEarliestMs != 5000 || *v.SigtermLatestMs != 8200 || !strings.Contains(v.SigtermBasisText, "Killing again at +3000 ms") {
		t.Errorf("SIGTERM %v (%d..%d) from %q:\n%s", v.SigtermMs, *v.SigtermEarliestMs, *v.SigtermLatestMs, v.SigtermBasisText, strings.Join(v.Findings, "\n"))
	}
}

// A failing exec hook (sleep in an image without it) takes time to fail:
// the real kubelet sent SIGTERM just before FailedPreStopHook, 95 ms
// after Killing. The endpoint left in between, so no race happened.
func TestFailedPreStopHookPlacesSigterm(t *testing.T) {
	v := compute(realTermination(t, 30, execHook("sleep", "5"), 60, 10, 105, 300, 0))
	all := strings.Join(v.Findings, "\n")
	if v.SigtermMs == nil || *v.SigtermMs != 105 || !strings.HasPrefix(v.SigtermBasisText, "FailedPreStopHook at +105 ms") {
		t.Fatalf("SIGTERM %v (%s), want +105 ms at FailedPreStopHook", v.SigtermMs, v.SigtermBasisText)
	}
	if strings.Contains(all, "race window") || !v.Risk || !strings.Contains(all, "FailedPreStopHook") {
		t.Errorf("want the failed hook as the risk and no race window:\n%s", all)
	}
}

// On a loaded CI node the FailedPreStopHook Event arrived at +213 ms and
// the app logged its SIGTERM at +303 ms, 90 ms later (the Event's write and
// the CRI's signal are two paths): the only sure latest bound is the exit
// reported at +894 ms; with no exit seen, the grace deadline.
func TestFailedPreStopHookEventEarlyUnderLoad(t *testing.T) {
	v := compute(realTermination(t, 30, execHook("sleep", "5"), 45, 10, 213, 894, 0))
	if v.SigtermMs == nil || *v.SigtermMs != 213 || *v.SigtermEarliestMs > 0 || *v.SigtermLatestMs < 303 {
		t.Fatalf("SIGTERM %v (%d..%d ms, %s): the app's own SIGTERM at +303 ms must lie inside", v.SigtermMs, *v.SigtermEarliestMs, *v.SigtermLatestMs, v.SigtermBasisText)
	}
	if !strings.Contains(v.SigtermBasisText, "the exit reported at +894 ms") {
		t.Errorf("basis %q: want the exit named as the latest bound", v.SigtermBasisText)
	}
}

// An app that ignores SIGTERM serves until SIGKILL: the SIGTERM time
// says nothing about requests failing, the SIGKILL does.
func TestSigkillAfterIgnoredSigtermMakesNoSigtermClaim(t *testing.T) {
	v := compute(realTermination(t, 3, nil, 150, 10, 0, 3150, 137))
	all := strings.Join(v.Findings, "\n")
	for _, bad := range []string{"requests routed to it meanwhile fail", "race window", "expect errors on every rollout"} {
		if strings.Contains(all, bad) {
			t.Errorf("claim %q drawn from the SIGTERM time of an app that served until SIGKILL:\n%s", bad, all)
		}
	}
	if !v.Risk || !strings.Contains(all, "SIGKILLed (exit 137)") || !strings.Contains(all, "did not stop on SIGTERM") {
		t.Errorf("want the SIGKILL as the risk and what it means:\n%s", all)
	}
}

// A real kubelet turns Initialized=True into Initialized=True
// (PodCompleted) as the pod ends, keeping the old transition time: that is
// not the change's time, and is not printed as one.
func TestReasonOnlyConditionChangeHasNoServerTime(t *testing.T) {
	pod := testPod(30, nil)
	old := metav1.NewTime(at(-3_600_000))
	pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: old})
	r := NewRecorder(pod, nil, at(-1000))
	r.MarkT0(at(0), T0DeleteSent, "DELETE sent")
	del := deleting(pod, at(0))
	r.feedPod(at(5), watch.Modified, del)
	done := del.DeepCopy()
	done.Status.Conditions[1].Reason = "PodCompleted"
	r.feedPod(at(300), watch.Modified, done)
	for _, e := range r.TL.Events {
		if e.Kind == KindCondition && strings.Contains(e.Message, "Initialized") {
			if !e.Server.IsZero() || !strings.Contains(e.Message, "reason changed, status True since") {
				t.Errorf("condition event %q with server time %s", e.Message, e.Server)
			}
			return
		}
	}
	t.Fatalf("no Initialized condition event in %+v", r.TL.Events)
}

// On a real data plane a request with no answer after the endpoint left is one the
// rules still sent to an address where nothing answered, not one that
// reached the pod.
func TestLateRequestsSayWhatTheyMean(t *testing.T) {
	timeouts := lateRequestsText([]LabelCount{{Kind: probe.NoAnswer, Count: 11}})
	if strings.Contains(timeouts, "reached the pod") || !strings.Contains(timeouts, "11 got no answer at all") {
		t.Errorf("timeouts: %q", timeouts)
	}
	mixed := lateRequestsText([]LabelCount{{Kind: probe.Refused, Count: 3}, {Kind: probe.NoAnswer, Count: 2}})
	if !strings.Contains(mixed, "3 were refused") || !strings.Contains(mixed, "2 got no answer") {
		t.Errorf("mixed: %q", mixed)
	}
}

// A request failing while SIGTERM and the endpoint's leaving are too close
// to order is placed there, not described as failing after the endpoint
// left (it did not).
func TestFailuresInsideTheUncertaintyArePlacedThere(t *testing.T) {
	tl := realTermination(t, 30, nil, 31, 18, 0, 173, 0)
	tl.ProbeURL = "http://10.96.0.1/"
	tl.Requests = []probe.Result{{Start: at(-100), Kind: probe.OK}, {Start: at(16), Kind: probe.Reset}, {Start: at(100), Kind: probe.OK}}
	v := compute(tl)
	all := strings.Join(v.Findings, "\n")
	if strings.Contains(all, "0 failed after the endpoint left") || !strings.Contains(all, "too close for the API to order") {
		t.Errorf("the failure at +16 ms is misplaced:\n%s", all)
	}
}

// On a loaded node the FailedPreStopHook event arrived 378 ms after the
// real SIGTERM, after the container's exit report: SIGTERM is bounded by
// the earlier of the two, and the estimate's uncertainty reaches back to
// Killing, so a window inside it is not given a sign.
func TestFailedPreStopHookEventLateUnderLoad(t *testing.T) {
	v := compute(realTermination(t, 30, execHook("sleep", "5"), 455, 80, 511, 477, 0))
	all := strings.Join(v.Findings, "\n")
	if v.SigtermMs == nil || *v.SigtermMs != 477 || !strings.HasPrefix(v.SigtermBasisText, "the exit reported at +477 ms, before FailedPreStopHook at +511 ms") {
		t.Fatalf("SIGTERM %v (%s), want +477 ms, bounded by the exit report", v.SigtermMs, v.SigtermBasisText)
	}
	if *v.SigtermEarliestMs != 0 || *v.SigtermLatestMs != 477 {
		t.Errorf("bounds %d..%d ms, want 0..477", *v.SigtermEarliestMs, *v.SigtermLatestMs)
	}
	if !strings.Contains(all, "the order cannot be told from the API") || strings.Contains(all, "SIGTERM came 22 ms after") || strings.Contains(all, "race window") {
		t.Errorf("a window inside the uncertainty was given a sign:\n%s", all)
	}
}

// A native sidecar whose preStop may end it (here an httpGet, as a
// proxy's /quitquitquit) beside an app that sleeps in its preStop: the
// kubelet runs both hooks at the start, so the verdict cannot call it
// safe; a native sidecar without a hook, or with a longer sleep, is fine.
func TestNativeSidecarHookThatMayEndIt(t *testing.T) {
	build := func(hook *corev1.LifecycleHandler) *Timeline {
		pod := testPod(30, sleepHook(5))
		always := corev1.ContainerRestartPolicyAlways
		proxy := corev1.Container{Name: "proxy", Image: "envoy", RestartPolicy: &always}
		if hook != nil {
			proxy.Lifecycle = &corev1.Lifecycle{PreStop: hook}
		}
		pod.Spec.InitContainers = []corev1.Container{proxy}
		r, del := killedPod(pod)
		r.feedPod(at(5200), watch.Modified, exited(del, 0, at(5100)))
		return r.TL
	}
	quit := &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/quitquitquit"}}
	if v := compute(build(quit)); !v.Risk || !findingWithin(v, "native sidecar proxy has a preStop hook") {
		t.Errorf("an httpGet hook on a native sidecar: risk %v\n%s", v.Risk, strings.Join(v.Findings, "\n"))
	}
	for name, hook := range map[string]*corev1.LifecycleHandler{"no hook": nil, "a longer sleep": sleepHook(10)} {
		if v := compute(build(hook)); findingWithin(v, "native sidecar proxy") {
			t.Errorf("%s: flagged\n%s", name, strings.Join(v.Findings, "\n"))
		}
	}
}

func findingWithin(v Verdict, sub string) bool { return hasFinding(v, sub) }

// A container ended early (here by its own preStop, as a proxy's
// /quitquitquit) while the kubelet reported its exit only 14 s later with
// the pod's next status: the fact dates the exit by its finishedAt, not by
// the report; a report within the kubelet's usual lag keeps the report.
func TestExitReportedLateIsDatedByFinishedAt(t *testing.T) {
	r, del := deletedPod(testPod(30, sleepHook(15)))
	r.feedPod(at(14384), watch.Modified, exited(del, 0, at(300)))
	all := strings.Join(compute(r.TL).Findings, "\n")
	if !strings.Contains(all, "container app exited 0 between +0 and +1300 ms by its finishedAt") || !strings.Contains(all, "reported only at +14384 ms") {
		t.Errorf("the late report is not dated by finishedAt:\n%s", all)
	}
	r, del = deletedPod(testPod(30, nil))
	r.feedPod(at(450), watch.Modified, exited(del, 0, at(300)))
	if all := strings.Join(compute(r.TL).Findings, "\n"); !strings.Contains(all, "container app exited 0 at +450 ms as reported by the kubelet") {
		t.Errorf("a timely report is not kept:\n%s", all)
	}
}
