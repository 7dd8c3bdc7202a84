package timeline

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
)

// terminateHook is terminate with container app's preStop replaced by
// hook, as the recorder reads it from the pod it starts with.
func terminateHook(t *testing.T, hook *corev1.LifecycleHandler, grace, exitMs int64, extra func(r *Recorder)) *Timeline {
	t.Helper()
	withHook := func(pod *corev1.Pod, services []string, start time.Time) *Recorder {
		p := pod.DeepCopy()
		p.Spec.Containers[0].Lifecycle = &corev1.Lifecycle{PreStop: hook}
		return NewRecorder(p, services, start)
	}
	return timelinetest.Terminate(t, withHook, grace, false, 0, []string{"web"}, exitMs, 0, extra).TL
}

var drainHook = execHook("/usr/local/bin/drain", "--wait")

// A hook of unknown length: SIGTERM lies between the request and the
// reported exit. An exit 2 s after the endpoint left proves it came
// inside --propagation: a risk, never SAFE.
func TestVerdictUnknownHookExitInsidePropagation(t *testing.T) {
	for name, hook := range map[string]*corev1.LifecycleHandler{"exec": drainHook, "httpGet": httpGetHook("/drain")} {
		tl := terminateHook(t, hook, 30, 2015, nil)
		v := ComputeWith(tl, Options{Propagation: 5 * time.Second})
		if !v.Risk || v.StopContainer != "app" || v.SigtermMs != nil {
			t.Errorf("%s: risk %v stop %q estimate %v; findings\n%s", name, v.Risk, v.StopContainer, v.SigtermMs, strings.Join(v.Findings, "\n"))
		}
		checkMs(t, name+" earliest", v.SigtermEarliestMs, 0)
		checkMs(t, name+" latest", v.SigtermLatestMs, 2015)
		checkMs(t, name+" short by", v.ShortByMs, 2985)
		for _, want := range []string{"window too short: the preStop hook of container app has a length the spec does not tell",
			"SIGTERM came between +0 and +2015 ms, at most 2000 ms after the endpoint left every ready set at +15 ms", "then the " + name + " hook; SIGTERM came when it returned, no later than the exit reported at +2015 ms"} {
			if !hasFinding(v, want) {
				t.Errorf("%s: no finding %q in:\n%s", name, want, strings.Join(v.Findings, "\n"))
			}
		}
		if v.CannotTell || hasFinding(v, "SAFE") {
			t.Errorf("%s: cannot tell %v, or a finding calls it safe:\n%s", name, v.CannotTell, strings.Join(v.Findings, "\n"))
		}
	}
}

// An exit 30 s after the endpoint left: SIGTERM may have come at once
// (the hook may return at once) or 30 s later; cannot tell, a risk.
func TestVerdictUnknownHookLateExitCannotTell(t *testing.T) {
	tl := terminateHook(t, drainHook, 60, 30015, nil)
	v := ComputeWith(tl, Options{Propagation: 5 * time.Second})
	if !v.Risk || v.ShortByMs != nil {
		t.Errorf("risk %v short by %v", v.Risk, v.ShortByMs)
	}
	if !hasFinding(v, "cannot tell whether the pod had the 5s (--propagation) after it left the traffic") || !hasFinding(v, "SIGTERM came between +0 and +30015 ms") {
		t.Errorf("findings\n%s", strings.Join(v.Findings, "\n"))
	}
	if !hasFinding(v, "SIGTERM time unknown") || !hasFinding(v, "bounded by what was observed: between +0 and +30015 ms") {
		t.Errorf("the unknown SIGTERM is not bounded in words:\n%s", strings.Join(v.Findings, "\n"))
	}
}

// Safe only when the earliest bound is past both: here the endpoint left
// every ready set 10 s before the delete (its readiness failed), so
// whatever the hook did, SIGTERM came after it and after --propagation.
func TestVerdictUnknownHookSafeOnlyWhenBoundProvesIt(t *testing.T) {
	r := NewRecorder(testPod(60, drainHook), []string{"web"}, at(-20000))
	r.feedSlice(at(-19000), watch.Added, readySlice("web-abc", "web"))
	r.feedSlice(at(-10000), watch.Modified, slice("web-abc", "web", boolp(false), boolp(false), boolp(false)))
	r.MarkT0(at(0), T0DeleteSent, "DELETE sent")
	del := deleting(testPod(60, drainHook), at(0))
	r.feedPod(at(5), watch.Modified, del)
	r.feedSlice(at(15), watch.Modified, slice("web-abc", "web", boolp(false), boolp(false), boolp(true)))
	r.feedEvent(at(20), kubeEvent("ev-kill", "Normal", "Killing", "Stopping container app", at(0)), false)
	r.feedPod(at(30015), watch.Modified, exited(del, 0, at(30015)))
	v := ComputeWith(r.TL, Options{Propagation: 5 * time.Second})
	if v.Risk || !hasFinding(v, "at least 10000 ms after the endpoint left every ready set (--propagation 5s met)") {
		t.Errorf("risk %v findings\n%s", v.Risk, strings.Join(v.Findings, "\n"))
	}
}

// A container whose hook length is unknown beside one with a known sleep:
// the pod's first SIGTERM is the earlier of the two, so its bounds widen
// to the unknown hook's and the sleep alone cannot make the pod safe.
func TestVerdictUnknownHookBesideKnownSleep(t *testing.T) {
	early := compute(unknownBesideSleep(1200))
	if !early.Risk || early.StopContainer != "cloud-sql-proxy" || early.SigtermMs != nil {
		t.Errorf("risk %v stop %q estimate %v; findings\n%s", early.Risk, early.StopContainer, early.SigtermMs, strings.Join(early.Findings, "\n"))
	}
	checkMs(t, "latest", early.SigtermLatestMs, 1200)
	if !hasFinding(early, "window too short: the preStop hook of container cloud-sql-proxy has a length the spec does not tell") {
		t.Errorf("findings\n%s", strings.Join(early.Findings, "\n"))
	}
	// Exiting after the app's sleep: either may have been first.
	late := compute(unknownBesideSleep(12000))
	if !late.Risk || late.StopContainer != "app" || !hasFinding(late, "so container app, estimated at +10020 ms (Killing at +20 ms + preStop 10s), may not be the first told to stop") ||
		!hasFinding(late, "cannot tell whether the pod had the 5s (--propagation)") || !hasFinding(late, "SIGTERM came between +0 and +10270 ms") {
		t.Errorf("risk %v stop %q findings\n%s", late.Risk, late.StopContainer, strings.Join(late.Findings, "\n"))
	}
}

// unknownBesideSleep is app with preStop sleep 10 beside cloud-sql-proxy
// with an httpGet hook, which exits at exitMs.
func unknownBesideSleep(exitMs int64) *Timeline {
	pod := testPod(30, sleepHook(10))
	pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: "cloud-sql-proxy", Image: "proxy",
		Lifecycle: &corev1.Lifecycle{PreStop: httpGetHook("/quitquitquit")}})
	r, del := killedPod(pod)
	gone := del.DeepCopy()
	gone.Status.ContainerStatuses = append(gone.Status.ContainerStatuses, corev1.ContainerStatus{Name: "cloud-sql-proxy",
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, FinishedAt: metav1.NewTime(at(exitMs - 100))}}})
	r.feedPod(at(exitMs), watch.Modified, gone)
	return r.TL
}
