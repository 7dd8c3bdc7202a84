package timelinetest

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

// Recorder is the part of timeline.Recorder that Terminate plays to, S
// being timeline.T0Source. It is an interface so that the timeline's own
// tests can use this package without an import cycle.
type Recorder[S ~string] interface {
	Handle(n listwatch.Notice)
	MarkT0(at time.Time, source S, message string)
}

// Terminate plays a typical termination of web-1 through the recorder that
// newRecorder makes (timeline.NewRecorder): delete sent at +0, deletion
// seen at +5 ms, the endpoint turns terminating in every slice at +15 ms,
// Killing at +20 ms, the container exits with code at exitMs, the endpoint
// is removed at exitMs+10 and the object is gone at exitMs+20. hook adds a
// preStop sleep of hookSeconds; extra runs after Killing.
func Terminate[S ~string, R Recorder[S]](t testing.TB, newRecorder func(*corev1.Pod, []string, time.Time) R,
	grace int64, hook bool, hookSeconds int64, services []string, exitMs int64, code int32, extra func(r R)) R {
	t.Helper()
	pod := Pod(grace, nil)
	if hook {
		pod = Pod(grace, SleepHook(hookSeconds))
	}
	r := newRecorder(pod, services, At(-1000))
	for _, svc := range services {
		r.Handle(SlicesListed(At(-900), nil, true))
		r.Handle(Watched(At(-800), watch.Added, ReadySlice(svc+"-abc", svc)))
	}
	r.MarkT0(At(0), "delete-sent", "DELETE sent")
	del := Deleting(pod, At(0))
	r.Handle(Watched(At(5), watch.Modified, del))
	for _, svc := range services {
		r.Handle(Watched(At(15), watch.Modified, TerminatingSlice(svc+"-abc", svc)))
	}
	r.Handle(Watched(At(20), watch.Added, KubeEvent("ev-kill", "Normal", "Killing", "Stopping container app", At(0))))
	if extra != nil {
		extra(r)
	}
	r.Handle(Watched(At(exitMs), watch.Modified, Exited(del, code, At(exitMs))))
	for _, svc := range services {
		r.Handle(Watched(At(exitMs+10), watch.Modified, Slice(svc+"-abc", svc, nil, nil, nil)))
	}
	r.Handle(Watched(At(exitMs+20), watch.Deleted, Exited(del, code, At(exitMs))))
	return r
}
