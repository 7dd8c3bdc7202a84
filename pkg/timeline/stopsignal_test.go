package timeline

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
)

// terminateSignal is timelinetest.Terminate of a pod whose container app
// names stop signal spec (lifecycle.stopSignal) and whose status reports
// status (containerStatuses[].stopSignal); "" for neither.
func terminateSignal(t *testing.T, spec, status string, grace, hookSeconds, exitMs int64, code int32) Verdict {
	t.Helper()
	newRecorder := func(pod *corev1.Pod, services []string, start time.Time) *Recorder {
		p := pod.DeepCopy()
		if spec != "" {
			p.Spec.Containers[0].Lifecycle.StopSignal = sig(spec)
		}
		if status != "" {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Ready: true, StopSignal: sig(status)}}
		}
		return NewRecorder(p, services, start)
	}
	tl := timelinetest.Terminate(t, newRecorder, grace, true, hookSeconds, []string{"web"}, exitMs, code, nil).TL
	return ComputeWith(tl, Options{Propagation: 5 * time.Second})
}

func sig(s string) *corev1.Signal {
	v := corev1.Signal(s)
	return &v
}

// The watch names the stop signal where the pod names one that is not
// SIGTERM, says where it read it, and hedges a sentence that depends on
// the signal when the pod names none (the image's STOPSIGNAL may differ).
func TestVerdictNamesStopSignal(t *testing.T) {
	for _, tc := range []struct {
		name, spec, status string
		exitMs             int64
		code               int32
		want, absent       []string
		reported           *bool
	}{
		{name: "none named", exitMs: 6000,
			want:   []string{"SIGTERM estimated at +5020 ms", "window: SIGTERM came 5005 ms after"},
			absent: []string{"stopSignal", "STOPSIGNAL"}},
		{name: "spec only", spec: "SIGQUIT", exitMs: 6000, reported: boolp(false),
			want: []string{"container app asks to be stopped with SIGQUIT (lifecycle.stopSignal, alpha gate ContainerStopSignals): the kubelet sends it only with the gate on",
				"SIGQUIT estimated at +5020 ms", "window: SIGQUIT came 5005 ms after"}},
		{name: "reported by the kubelet", spec: "SIGQUIT", status: "SIGQUIT", exitMs: 6000, reported: boolp(true),
			want: []string{"container app is stopped with SIGQUIT, not SIGTERM: the kubelet reports it as its stop signal (status.containerStatuses[].stopSignal)", "window: SIGQUIT came 5005 ms after"}},
		{name: "image's signal reported", status: "SIGWINCH", exitMs: 6000, reported: boolp(true),
			want: []string{"container app is stopped with SIGWINCH, not SIGTERM", "window: SIGWINCH came"}},
		{name: "SIGKILLed, none named", exitMs: 10010, code: 137,
			want: []string{"did not stop on SIGTERM (or the image's STOPSIGNAL) (estimated", "the app ignored SIGTERM (or the image's STOPSIGNAL) or shut down too slowly"}},
		{name: "SIGKILLed, SIGTERM reported", status: "SIGTERM", exitMs: 10010, code: 137, reported: boolp(true),
			want:   []string{"did not stop on SIGTERM (estimated", "the app ignored SIGTERM or shut down too slowly"},
			absent: []string{"STOPSIGNAL", "not SIGTERM"}},
	} {
		v := terminateSignal(t, tc.spec, tc.status, 10, 5, tc.exitMs, tc.code)
		all := strings.Join(v.Findings, "\n")
		for _, w := range tc.want {
			if !strings.Contains(all, w) {
				t.Errorf("%s: no %q in:\n%s", tc.name, w, all)
			}
		}
		for _, a := range tc.absent {
			if strings.Contains(all, a) {
				t.Errorf("%s: %q in:\n%s", tc.name, a, all)
			}
		}
		switch {
		case tc.reported == nil && v.StopSignal != nil:
			t.Errorf("%s: stopSignal %+v, want none", tc.name, v.StopSignal)
		case tc.reported != nil && (v.StopSignal == nil || v.StopSignal.Reported != *tc.reported):
			t.Errorf("%s: stopSignal %+v, want reported %v", tc.name, v.StopSignal, *tc.reported)
		}
	}
}
