package timeline

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// podWith is app (preStop sleep 5, grace 30) beside container name with
// hook, a native sidecar when native.
func podWith(name string, hook *corev1.LifecycleHandler, native bool) *corev1.Pod {
	return withSidecar(testPod(30, sleepHook(5)), name, hook, native)
}

// withSidecar adds container name with preStop hook (nil: none) to pod, as
// an initContainer with restartPolicy Always when native.
func withSidecar(pod *corev1.Pod, name string, hook *corev1.LifecycleHandler, native bool) *corev1.Pod {
	c := corev1.Container{Name: name, Image: "proxy"}
	if hook != nil {
		c.Lifecycle = &corev1.Lifecycle{PreStop: hook}
	}
	if native {
		always := corev1.ContainerRestartPolicyAlways
		c.RestartPolicy = &always
		pod.Spec.InitContainers = append(pod.Spec.InitContainers, c)
	} else {
		pod.Spec.Containers = append(pod.Spec.Containers, c)
	}
	return pod
}

// exitAt is one container's exit: reported at recvMs, finishedAt at
// finishedMs (whole seconds on the wire).
type exitAt struct {
	name               string
	recvMs, finishedMs int64
}

// exitsTimeline plays pod's deletion and the exits in order, each in its
// own pod status update.
func exitsTimeline(pod *corev1.Pod, exits ...exitAt) *Timeline {
	r, cur := killedPod(pod)
	for _, x := range exits {
		cur = containerExited(cur, x.name, 0, at(x.finishedMs))
		r.feedPod(at(x.recvMs), watch.Modified, cur)
	}
	return r.TL
}

// The real node's case: a native sidecar whose hook quits it exits 5 s
// before the app. Both are listed with their own exits, the sidecar named
// as the first to stop.
func TestVerdictNamesTheContainerThatStoppedFirst(t *testing.T) {
	tl := exitsTimeline(podWith("istio-proxy", httpGetHook("/quitquitquit"), true),
		exitAt{"istio-proxy", 700, 600}, exitAt{"app", 5200, 5100})
	v := compute(tl)
	if len(v.Containers) != 2 || v.Containers[0].Exit == nil || v.Containers[1].Exit == nil ||
		v.Containers[1].Name != "istio-proxy" || !v.Containers[1].NativeSidecar || v.Containers[1].Exit.Ms != 700 || v.Containers[0].Exit.Ms != 5200 {
		t.Fatalf("containers %+v: want app and the native sidecar istio-proxy, each with its exit", v.Containers)
	}
	if !hasFinding(v, "containers by finishedAt: istio-proxy (native sidecar) at 07:00:00, app at 07:00:05: istio-proxy stopped first") {
		t.Errorf("findings\n%s", strings.Join(v.Findings, "\n"))
	}
	if !v.Risk || !hasFinding(v, "native sidecar istio-proxy has a preStop hook") {
		t.Errorf("the quitting sidecar is not a risk: %v", v.Findings)
	}
}

// finishedAt is whole seconds: two exits in the same second are not
// ordered, whatever order their reports came in.
func TestVerdictExitOrderCannotBeToldInOneSecond(t *testing.T) {
	tl := exitsTimeline(podWith("envoy", sleepHook(5), false), exitAt{"envoy", 5150, 5100}, exitAt{"app", 5950, 5900})
	v := compute(tl)
	want := "containers by finishedAt: app at 07:00:05, envoy at 07:00:05: which of app, envoy stopped first cannot be told (finishedAt is whole seconds and they share 07:00:05)"
	if !hasFinding(v, want) {
		t.Errorf("want %q in\n%s", want, strings.Join(v.Findings, "\n"))
	}
	if hasFinding(v, ": envoy stopped first") || hasFinding(v, ": app stopped first") {
		t.Errorf("an order was claimed: %v", v.Findings)
	}
}

// A container whose exit was never seen is named; the first is only the
// first of those seen.
func TestVerdictExitOrderWithAnExitUnseen(t *testing.T) {
	v := compute(exitsTimeline(podWith("istio-proxy", nil, true), exitAt{"app", 5200, 5100}))
	if !hasFinding(v, "containers by finishedAt: app at 07:00:05; no exit seen for istio-proxy: app stopped first of those seen to exit") {
		t.Errorf("findings\n%s", strings.Join(v.Findings, "\n"))
	}
	if single := compute(terminate(t, 30, true, 5, []string{"web"}, 5100, 0, nil)); hasFinding(single, "containers by finishedAt") {
		t.Errorf("a single container got an order: %v", single.Findings)
	}
}
