package timeline

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// lonelyTermination plays a pod that is its Service's only endpoint: ready
// at start, terminating (still serving) at +15 ms, Killing at +20 ms, then
// extra, the exit at exitMs and the endpoint's removal 10 ms later.
func lonelyTermination(t *testing.T, preStop int64, exitMs int64, extra func(r *Recorder)) *Timeline {
	t.Helper()
	pod := testPod(45, nil)
	if preStop > 0 {
		pod = testPod(45, sleepHook(preStop))
	}
	r := NewRecorder(pod, []string{"web"}, at(-1000))
	r.feedSlices(at(-900), []discoveryv1.EndpointSlice{*lonelySlice("web-abc", "web", boolp(true), boolp(true), boolp(false))}, true)
	r.MarkT0(at(0), T0DeleteSent, "DELETE sent")
	del := deleting(pod, at(0))
	r.feedPod(at(5), watch.Modified, del)
	r.feedSlice(at(15), watch.Modified, lonelySlice("web-abc", "web", boolp(false), boolp(true), boolp(true)))
	r.feedEvent(at(20), kubeEvent("ev-kill", "Normal", "Killing", "Stopping container app", at(0)), false)
	if extra != nil {
		extra(r)
	}
	r.feedPod(at(exitMs), watch.Modified, exited(del, 0, at(exitMs)))
	r.feedSlice(at(exitMs+10), watch.Modified, lonelySlice("web-abc", "web", nil, nil, nil))
	r.feedPod(at(exitMs+20), watch.Deleted, exited(del, 0, at(exitMs)))
	return r.TL
}

// The last replica (a single pod, scale to 0, every pod deleted at once):
// with no ready endpoint left kube-proxy keeps sending the Service's
// traffic to the serving, terminating pod, so the pod did not stop
// receiving traffic when it left the ready set.
func TestVerdictNoReadyEndpointKeepsTrafficUntilServingStops(t *testing.T) {
	tl := lonelyTermination(t, 5, 6000, nil)
	v := compute(tl)
	checkMs(t, "left the ready set", v.ReadyOutMs, 15)
	checkMs(t, "stopped receiving traffic", v.EndpointOutMs, 6010)
	if v.WindowMs == nil || *v.WindowMs != 5020-6010 {
		t.Errorf("window %v, want a race of 990 ms", v.WindowMs)
	}
	if !v.Risk || strings.Join(v.NoReadyEndpoint, ",") != "web" {
		t.Errorf("risk %v services without ready endpoint %v; findings %v", v.Risk, v.NoReadyEndpoint, v.Findings)
	}
	for _, want := range []string{"Service web had no ready endpoint left from +15 ms", "kept receiving traffic until it stopped serving at +6010 ms",
		"told to stop 990 ms BEFORE it stopped receiving traffic"} {
		if !hasFinding(v, want) {
			t.Errorf("no finding %q in:\n%s", want, strings.Join(v.Findings, "\n"))
		}
	}
	if hasFinding(v, "stopped receiving traffic before") || hasFinding(v, "endpoint out of every ready set") {
		t.Errorf("the verdict claims the traffic stopped at the ready set:\n%s", strings.Join(v.Findings, "\n"))
	}
}

// A replacement pod turning ready ends the fallback: traffic stops then.
func TestVerdictNoReadyEndpointUntilReplacementReady(t *testing.T) {
	tl := lonelyTermination(t, 0, 1000, func(r *Recorder) {
		s := lonelySlice("web-abc", "web", boolp(false), boolp(true), boolp(true))
		s.Endpoints = append(s.Endpoints, slice("x", "web", nil, nil, nil).Endpoints...)
		r.feedSlice(at(800), watch.Modified, s)
	})
	v := compute(tl)
	checkMs(t, "stopped receiving traffic", v.EndpointOutMs, 800)
	if !v.Risk || !hasFinding(v, "until another pod's endpoint turned ready at +800 ms") || !hasFinding(v, "780 ms BEFORE") {
		t.Errorf("findings %v", v.Findings)
	}
}

// A pod that stops serving (readiness failing during preStop) before its
// SIGTERM is safe even as the last endpoint, and the verdict says why.
func TestVerdictNoReadyEndpointStopsServingInTime(t *testing.T) {
	tl := lonelyTermination(t, 5, 6000, func(r *Recorder) {
		r.feedSlice(at(1000), watch.Modified, lonelySlice("web-abc", "web", boolp(false), boolp(false), boolp(true)))
	})
	v := compute(tl)
	checkMs(t, "stopped receiving traffic", v.EndpointOutMs, 1000)
	// The renderer's headline for it (render.WriteVerdict, tested there)
	// says why from NoReadyEndpoint.
	if v.Risk || strings.Join(v.NoReadyEndpoint, ",") != "web" || !hasFinding(v, "until it stopped serving at +1000 ms") ||
		!hasFinding(v, "traffic had nowhere to go: Service web had no endpoint serving from +1000 ms") {
		t.Errorf("risk %v services without ready endpoint %v:\n%s", v.Risk, v.NoReadyEndpoint, strings.Join(v.Findings, "\n"))
	}
}

// A window shorter than --propagation is a risk, saying by how much; the
// audit's floor (5 s) passes.
func TestVerdictPropagation(t *testing.T) {
	web := []string{"web"}
	short := compute(terminate(t, 30, true, 1, web, 2000, 0, nil))
	checkMs(t, "short by", short.ShortByMs, 5000-1020)
	if !short.Risk || !hasFinding(short, "window too short: SIGTERM came 1005 ms after the endpoint left every ready set") ||
		!hasFinding(short, "3980 ms short of the 5s (--propagation)") {
		t.Errorf("preStop 1 s: risk %v findings %v", short.Risk, short.Findings)
	}
	floor := compute(terminate(t, 30, true, 5, web, 6000, 0, nil))
	if floor.Risk || floor.ShortByMs != nil || !hasFinding(floor, "--propagation 5s met") {
		t.Errorf("preStop 5 s: risk %v findings %v", floor.Risk, floor.Findings)
	}
	fast := ComputeWith(terminate(t, 30, true, 1, web, 2000, 0, nil), Options{Propagation: time.Second})
	if fast.Risk || fast.PropagationMs != 1000 {
		t.Errorf("preStop 1 s, --propagation 1s: risk %v findings %v", fast.Risk, fast.Findings)
	}
	none := compute(terminate(t, 30, false, 0, web, 1000, 0, nil))
	if !hasFinding(none, "no preStop delay") || !hasFinding(none, "4980 ms short") {
		t.Errorf("no preStop: findings %v", none.Findings)
	}
}

// sidecarPod is an app with preStop sleep 15 s and grace 40 s beside an
// istio-proxy without preStop, as an ordinary container or, when native,
// as an initContainer with restartPolicy Always.
func sidecarPod(native bool) *corev1.Pod {
	return withSidecar(testPod(40, sleepHook(15)), "istio-proxy", nil, native)
}

func killingOf(container string, uid string) *corev1.Event {
	ev := kubeEvent(uid, "Normal", "Killing", "Stopping container "+container, at(0))
	ev.InvolvedObject.FieldPath = "spec.containers{" + container + "}"
	return ev
}

func sidecarTimeline(pod *corev1.Pod, perContainer bool) *Timeline {
	r := NewRecorder(pod, []string{"web"}, at(-100))
	r.feedSlice(at(-50), watch.Added, readySlice("web-abc", "web"))
	r.MarkT0(at(0), T0DeleteSent, "DELETE sent")
	r.feedPod(at(5), watch.Modified, deleting(pod, at(0)))
	r.feedSlice(at(15), watch.Modified, terminatingSlice("web-abc", "web"))
	if perContainer { // the kubelet: one Killing per container
		r.feedEvent(at(20), killingOf("app", "k1"), false)
		r.feedEvent(at(21), killingOf("istio-proxy", "k2"), false)
	} else { // one Killing naming no container
		ev := kubeEvent("k", "Normal", "Killing", "Stopping container", at(0))
		ev.InvolvedObject.FieldPath = ""
		r.feedEvent(at(20), ev, false)
	}
	return r.TL
}

// An ordinary proxy without preStop gets SIGTERM at once while the app
// sleeps in preStop: flagged, and the verdict names the proxy.
func TestVerdictSidecarStopsFirst(t *testing.T) {
	for _, perContainer := range []bool{true, false} {
		v := compute(sidecarTimeline(sidecarPod(false), perContainer))
		if v.StopContainer != "istio-proxy" || !v.Risk {
			t.Errorf("per-container Killing %v: stop container %q risk %v", perContainer, v.StopContainer, v.Risk)
		}
		if !hasFinding(v, "container istio-proxy has no preStop: it got SIGTERM at +2") || !hasFinding(v, "while container app still slept in its preStop (15s) until +15020 ms") ||
			!hasFinding(v, "native sidecar") || !hasFinding(v, "for container istio-proxy, the first told to stop") {
			t.Errorf("per-container Killing %v: findings\n%s", perContainer, strings.Join(v.Findings, "\n"))
		}
		if hasFinding(v, "no preStop delay: SIGTERM came") {
			t.Errorf("the generic no-preStop finding hides the sidecar: %v", v.Findings)
		}
	}
}

// A native sidecar is stopped after the app: not flagged, the app decides.
func TestVerdictNativeSidecarNotFlagged(t *testing.T) {
	tl := sidecarTimeline(sidecarPod(true), false)
	v := compute(tl)
	if v.Risk || v.StopContainer != "app" || hasFinding(v, "has no preStop") {
		t.Errorf("stop container %q risk %v findings %v", v.StopContainer, v.Risk, v.Findings)
	}
	if len(v.Containers) != 2 || !v.Containers[1].NativeSidecar || v.Containers[1].Name != "istio-proxy" || v.Containers[1].StoppedBeforeApp {
		t.Errorf("containers %+v", v.Containers)
	}
}

// A preStop that outlasts the grace period is abandoned by the kubelet
// when the grace period runs out, which then sends SIGTERM with 2 s
// before SIGKILL (kuberuntime_container.go, killContainer): on the real
// nodes the app logged SIGTERM at the deadline and exited 0. The
// FailedPreStopHook the kubelet reports after it stopped the container is
// that abandonment, not a hook that failed at once, and nothing says
// SIGTERM was never sent.
func TestVerdictPreStopOutlastingGraceGetsSIGTERMAtTheDeadline(t *testing.T) {
	v := compute(terminate(t, 10, true, 40, []string{"web"}, 10300, 0, func(r *Recorder) {
		r.feedEvent(at(10400), kubeEvent("ev-fail", "Warning", "FailedPreStopHook", "PreStopHook failed", at(10390)), false)
	}))
	if !v.PreStopAbandoned || v.PreStopFailed || v.SigtermMs == nil || *v.SigtermMs != 10020 {
		t.Fatalf("abandoned %v, failed %v, SIGTERM %v: want abandoned, not failed, SIGTERM at Killing + 10 s (+10020 ms)\n%s",
			v.PreStopAbandoned, v.PreStopFailed, v.SigtermMs, strings.Join(v.Findings, "\n"))
	}
	for _, wrong := range []string{"never sent", "never happened", "killed inside preStop", "FailedPreStopHook before the grace deadline", "SIGKILLed"} {
		if hasFinding(v, wrong) {
			t.Errorf("a finding says %q:\n%s", wrong, strings.Join(v.Findings, "\n"))
		}
	}
	if !hasFinding(v, "the FailedPreStopHook at +10400 ms is the kubelet reporting the hook it cut short") {
		t.Errorf("the late FailedPreStopHook is not told from a hook that failed at once:\n%s", strings.Join(v.Findings, "\n"))
	}
	if v.Risk != true {
		t.Errorf("a preStop the kubelet abandons leaves the app 2 s: want a risk")
	}
}

// A hook whose duration cannot be read leaves SIGTERM unknown, naming the
// container; a proxy beside such an app is still flagged, since the app
// is in its hook when the proxy gets SIGTERM.
func TestVerdictUnknownHookNamesContainer(t *testing.T) {
	pod := testPod(30, &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/drain"}})
	r := NewRecorder(pod, []string{"web"}, at(-100))
	r.MarkT0(at(0), T0DeleteSent, "DELETE sent")
	v := compute(r.TL)
	if v.StopMs != nil || !hasFinding(v, "for container(s) app") {
		t.Errorf("stop %v findings %v", v.StopMs, v.Findings)
	}
	pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: "envoy"})
	r = NewRecorder(pod, []string{"web"}, at(-100))
	r.MarkT0(at(0), T0DeleteSent, "DELETE sent")
	r.feedEvent(at(20), kubeEvent("k", "Normal", "Killing", "Stopping container", at(0)), false)
	if v := compute(r.TL); v.StopContainer != "envoy" || !hasFinding(v, "container envoy has no preStop") || !hasFinding(v, "(unknown duration) until its preStop ended") {
		t.Errorf("stop container %q findings %v", v.StopContainer, v.Findings)
	}
}

// Not behind a Service, a proxy stopped first loses no Service traffic:
// said as a fact, not a risk.
func TestVerdictSidecarNotBehindServiceIsAFact(t *testing.T) {
	tl := sidecarTimeline(sidecarPod(false), true)
	tl.Services = nil
	v := compute(tl)
	if v.Risk || !hasFinding(v, "not behind any Service: no Service traffic is lost") {
		t.Errorf("risk %v findings %v", v.Risk, v.Findings)
	}
}

// Every pod deleted at once: the other pod's endpoint is terminating too,
// so no endpoint is ready and both keep the traffic until they stop
// serving.
func TestVerdictEveryPodDeletedAtOnce(t *testing.T) {
	pod := testPod(45, sleepHook(5))
	both := func(ready bool) *discoveryv1.EndpointSlice {
		s := lonelySlice("web-abc", "web", boolp(ready), boolp(true), boolp(!ready))
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{"10.0.0.2"},
			TargetRef:  &corev1.ObjectReference{Kind: "Pod", Name: "web-2", UID: "uid-web-2"},
			Conditions: discoveryv1.EndpointConditions{Ready: boolp(ready), Serving: boolp(true), Terminating: boolp(!ready)}})
		return s
	}
	r := NewRecorder(pod, []string{"web"}, at(-100))
	r.feedSlices(at(-90), []discoveryv1.EndpointSlice{*both(true)}, true)
	r.MarkT0(at(0), T0DeleteSent, "DELETE sent")
	r.feedSlice(at(15), watch.Modified, both(false))
	r.feedEvent(at(20), kubeEvent("k", "Normal", "Killing", "Stopping container app", at(0)), false)
	r.feedSlice(at(6010), watch.Modified, lonelySlice("web-abc", "web", nil, nil, nil))
	v := compute(r.TL)
	checkMs(t, "stopped receiving traffic", v.EndpointOutMs, 6010)
	if !v.Risk || !hasFinding(v, "Service web had no ready endpoint left from +15 ms") {
		t.Errorf("risk %v findings %v", v.Risk, v.Findings)
	}
}

// compute derives the verdict from a timeline with the default options.
func compute(tl *Timeline) Verdict { return ComputeWith(tl, Options{}) }
