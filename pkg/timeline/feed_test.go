package timeline

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
)

// The tests build a timeline step by step, handing the Recorder each
// notice a stream would deliver.

func (r *Recorder) feedPod(recv time.Time, typ watch.EventType, pod *corev1.Pod) {
	r.Handle(timelinetest.Watched(recv, typ, pod))
}

func (r *Recorder) feedPods(recv time.Time, pods []corev1.Pod) {
	r.Handle(podsListed(recv, pods))
}

func (r *Recorder) feedSlice(recv time.Time, typ watch.EventType, slice *discoveryv1.EndpointSlice) {
	r.Handle(timelinetest.Watched(recv, typ, slice))
}

func (r *Recorder) feedSlices(recv time.Time, slices []discoveryv1.EndpointSlice, initial bool) {
	r.Handle(timelinetest.SlicesListed(recv, slices, initial))
}

func (r *Recorder) feedEvent(recv time.Time, ev *corev1.Event, initial bool) {
	r.Handle(eventSeen(recv, ev, initial))
}
