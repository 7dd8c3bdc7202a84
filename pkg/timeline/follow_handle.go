package timeline

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

// handle feeds one notice to the recorder. It returns an error only when the
// pod itself cannot be watched; EndpointSlices or Events that cannot be
// watched degrade the timeline with a note.
func (f *follower) handle(n listwatch.Notice) error {
	switch n.Kind {
	case listwatch.KindError:
		return f.streamFailed(n)
	case listwatch.KindGapOpen, listwatch.KindGapClose:
		if g, ok := f.rec.Gap(n); ok {
			f.gapLine(g)
		}
	case listwatch.KindList:
		f.listed(n)
		if n.Initial {
			f.pending--
		}
	case listwatch.KindEvent:
		f.watched(n.Recv, n.Event)
	}
	return nil
}

func (f *follower) streamFailed(n listwatch.Notice) error {
	tl := f.rec.TL
	switch n.Stream {
	case "pod":
		return fmt.Errorf("watching pod %s/%s: %w", tl.Namespace, tl.Pod, n.Err)
	case "EndpointSlices":
		tl.EndpointsUnseen = true
		f.note(fmt.Sprintf("cannot watch EndpointSlices (%v): the endpoint track is missing, the race cannot be judged", n.Err))
	case "Events":
		tl.EventsUnseen = true
		f.note(fmt.Sprintf("cannot watch Events (%v): Killing and FailedPreStopHook are not seen, SIGTERM is estimated from the delete request", n.Err))
	}
	if !f.listedOnce[n.Stream] {
		f.listedOnce[n.Stream] = true
		f.pending--
	}
	return nil
}

func (f *follower) listed(n listwatch.Notice) {
	f.listedOnce[n.Stream] = true
	switch n.Stream {
	case "pod":
		pods := make([]corev1.Pod, 0, len(n.List))
		for _, o := range n.List {
			if p, ok := o.(*corev1.Pod); ok {
				pods = append(pods, *p)
			}
		}
		f.rec.PodList(n.Recv, pods)
	case "EndpointSlices":
		slices := make([]discoveryv1.EndpointSlice, 0, len(n.List))
		for _, o := range n.List {
			if s, ok := o.(*discoveryv1.EndpointSlice); ok {
				slices = append(slices, *s)
			}
		}
		f.rec.SliceList(n.Recv, slices, n.Initial)
	case "Events":
		for _, o := range n.List {
			if ev, ok := o.(*corev1.Event); ok {
				f.rec.KubeEvent(n.Recv, ev, n.Initial)
			}
		}
	}
}

func (f *follower) watched(recv time.Time, ev *watch.Event) {
	switch o := ev.Object.(type) {
	case *corev1.Pod:
		f.rec.PodEvent(recv, ev.Type, o)
	case *discoveryv1.EndpointSlice:
		f.rec.SliceEvent(recv, ev.Type, o)
	case *corev1.Event:
		if ev.Type != watch.Deleted {
			f.rec.KubeEvent(recv, o, false)
		}
	}
}
