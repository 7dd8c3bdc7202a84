package timeline

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
)

// terminateShared is terminate with app's preStop set to hook, in a pod
// whose containers share one process namespace when shared is true.
func terminateShared(t *testing.T, hook *corev1.LifecycleHandler, shared bool, grace, exitMs int64, code int32, extra func(r *Recorder)) Verdict {
	t.Helper()
	newRecorder := func(pod *corev1.Pod, services []string, start time.Time) *Recorder {
		p := pod.DeepCopy()
		p.Spec.ShareProcessNamespace = &shared
		p.Spec.Containers[0].Lifecycle = &corev1.Lifecycle{PreStop: hook}
		return NewRecorder(p, services, start)
	}
	return ComputeWith(timelinetest.Terminate(t, newRecorder, grace, false, 0, []string{"web"}, exitMs, code, extra).TL, Options{Propagation: 5 * time.Second})
}

// A real kubelet's report of a pod whose hook ran `kill 1` with a shared
// process namespace (tried on the real nodes): the hook fails, and every
// container exits 137 a second after the delete, 18 s before the grace
// deadline. That is not the kubelet's SIGKILL, and not an app that
// ignored SIGTERM.
func TestVerdictExit137BeforeTheDeadline(t *testing.T) {
	killsPause := execHook("sh", "-c", "kill 1; sleep 5")
	failed := func(r *Recorder) {
		r.Handle(timelinetest.Watched(timelinetest.At(1000), watch.Added, timelinetest.KubeEvent("ev-hook", "Warning", "FailedPreStopHook", "PreStopHook failed", timelinetest.At(1000))))
	}
	for _, c := range []struct {
		name    string
		shared  bool
		want    []string
		wantNot []string
	}{
		{"shared process namespace, kill 1", true,
			[]string{"not the kubelet's SIGKILL", "PID 1 is the pod's pause process", "the hook's process was killed with its container", "app was still in that hook, so it never got SIGTERM"},
			[]string{"ignored SIGTERM", "missing sleep binary"}},
		{"own process namespace", false,
			[]string{"not the kubelet's SIGKILL", "the OOM killer or another process that can signal it"},
			[]string{"ignored SIGTERM", "pause process"}},
	} {
		v := terminateShared(t, killsPause, c.shared, 20, 2000, 137, failed)
		all := strings.Join(v.Findings, "\n")
		for _, w := range c.want {
			if !strings.Contains(all, w) {
				t.Errorf("%s: no finding says %q:\n%s", c.name, w, all)
			}
		}
		for _, w := range c.wantNot {
			if strings.Contains(all, w) {
				t.Errorf("%s: a finding says %q:\n%s", c.name, w, all)
			}
		}
		if !v.Risk {
			t.Errorf("%s: every container killed at once, and no risk", c.name)
		}
	}
	oom := func(r *Recorder) {
		p := timelinetest.Exited(timelinetest.Deleting(r.Pod(), timelinetest.At(0)), 137, timelinetest.At(1500))
		p.Status.ContainerStatuses[0].State.Terminated.Reason = "OOMKilled"
		r.Handle(timelinetest.Watched(timelinetest.At(1500), watch.Modified, p))
	}
	v := terminateShared(t, sleepHook(5), false, 30, 2000, 137, oom)
	if all := strings.Join(v.Findings, "\n"); !strings.Contains(all, "was OOM-killed (exit 137)") || strings.Contains(all, "ignored SIGTERM") {
		t.Errorf("OOMKilled:\n%s", all)
	}
}

// A hook of unknown length that ends with `kill 1` in a shared process
// namespace, its FailedPreStopHook not seen: the container whose exit
// bounds the stop was killed with the pause process, so no line says
// SIGTERM came for it.
func TestBoundsOfAHookThatEndsThePauseProcess(t *testing.T) {
	hook := execHook("sh", "-c", "while [ -e /tmp/busy ]; do sleep 1; done; kill 1")
	v := terminateShared(t, hook, true, 20, 2000, 137, nil)
	all := strings.Join(v.Findings, "\n")
	for _, want := range []string{"it ends the pod's pause process, which kills every container", "it was killed (exit 137) without SIGTERM"} {
		if !strings.Contains(all, want) {
			t.Errorf("no finding says %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "SIGTERM came") {
		t.Errorf("a finding says SIGTERM came:\n%s", all)
	}
}

// A FailedPreStopHook in a pod that shares its process namespace, where
// another container's preStop runs killall (tried on the real nodes: the
// app's own hook ended when the sidecar's killall stopped its process):
// the watch names that killall, never a missing sleep binary.
func TestFailedHookBesideAKillByName(t *testing.T) {
	failed := func(r *Recorder) {
		r.Handle(timelinetest.Watched(timelinetest.At(1300), watch.Added, timelinetest.KubeEvent("ev-hook", "Warning", "FailedPreStopHook", "PreStopHook failed", timelinetest.At(1300))))
	}
	newRecorder := func(pod *corev1.Pod, services []string, start time.Time) *Recorder {
		p := pod.DeepCopy()
		p.Spec.ShareProcessNamespace = new(true)
		p.Spec.Containers[0].Lifecycle = &corev1.Lifecycle{PreStop: execHook("sleep", "5")}
		side := corev1.Container{Name: "side", Lifecycle: &corev1.Lifecycle{PreStop: execHook("sh", "-c", "sleep 1; killall app")}}
		p.Spec.Containers = append(p.Spec.Containers, side)
		return NewRecorder(p, services, start)
	}
	v := ComputeWith(timelinetest.Terminate(t, newRecorder, 20, false, 0, []string{"web"}, 2000, 0, failed).TL, Options{})
	if all := strings.Join(v.Findings, "\n"); strings.Contains(all, "missing sleep binary") || !strings.Contains(all, `container side's preStop runs "killall app"`) {
		t.Errorf("findings:\n%s", all)
	}
}
