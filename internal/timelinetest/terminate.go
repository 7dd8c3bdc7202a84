package timelinetest

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// Recorder is the part of timeline.Recorder that Terminate plays to. It is
// an interface so that the timeline's own tests can use this package
// without an import cycle.
type Recorder interface {
	SliceList(recv time.Time, slices []discoveryv1.EndpointSlice, initial bool)
	SliceEvent(recv time.Time, typ watch.EventType, slice *discoveryv1.EndpointSlice)
	MarkT0(at time.Time, source, message string)
	PodEvent(recv time.Time, typ watch.EventType, pod *corev1.Pod)
	KubeEvent(recv time.Time, ev *corev1.Event, initial bool)
	Gone() bool
}

// Terminate plays a typical termination of web-1 through the recorder that
// newRecorder makes (timeline.NewRecorder): delete sent at +0, deletion
// seen at +5 ms, the endpoint turns terminating in every slice at +15 ms,
// Killing at +20 ms, the container exits with code at exitMs, the endpoint
// is removed at exitMs+10 and the object is gone at exitMs+20. hook adds a
// preStop sleep of hookSeconds; extra runs after Killing.
func Terminate[R Recorder](t testing.TB, newRecorder func(*corev1.Pod, []string, time.Time) R,
	grace int64, hook bool, hookSeconds int64, services []string, exitMs int64, code int32, extra func(r R)) R {
	t.Helper()
	pod := Pod(grace, nil)
	if hook {
		pod = Pod(grace, SleepHook(hookSeconds))
	}
	r := newRecorder(pod, services, At(-1000))
	for _, svc := range services {
		r.SliceList(At(-900), nil, true)
		r.SliceEvent(At(-800), watch.Added, ReadySlice(svc+"-abc", svc))
	}
	r.MarkT0(At(0), "delete-sent", "DELETE sent")
	del := Deleting(pod, At(0))
	r.PodEvent(At(5), watch.Modified, del)
	for _, svc := range services {
		r.SliceEvent(At(15), watch.Modified, TerminatingSlice(svc+"-abc", svc))
	}
	r.KubeEvent(At(20), KubeEvent("ev-kill", "Normal", "Killing", "Stopping container app", At(0)), false)
	if extra != nil {
		extra(r)
	}
	r.PodEvent(At(exitMs), watch.Modified, Exited(del, code, At(exitMs)))
	for _, svc := range services {
		r.SliceEvent(At(exitMs+10), watch.Modified, Slice(svc+"-abc", svc, nil, nil, nil))
	}
	r.PodEvent(At(exitMs+20), watch.Deleted, Exited(del, code, At(exitMs)))
	if !r.Gone() {
		t.Fatal("recorder did not see the pod go")
	}
	return r
}
