package timeline

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/internal/ingress"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

// Handle records one notice of the pod's streams, received at n.Recv, as
// a listwatch.Stream delivers it:
//   - KindEvent: a watch notification of the pod, of an EndpointSlice or
//     of an Event, told apart by its object (an Event's DELETED is not a
//     change of the pod: Events expire); a pod of another UID, a new one
//     reusing the name, is ignored;
//   - KindList: a List of stream StreamPods (the pod absent from it was
//     deleted during a gap), StreamEndpointSlices (a slice that held the
//     endpoint and is absent lost it) or StreamEvents; n.Initial marks the
//     stream's first. The first List of Events only remembers them, unless
//     the pod was already terminating. A List of another stream is ignored;
//   - KindGapOpen, KindGapClose: opens the gap of stream n.Stream (any
//     name) at n.Recv, or closes it, re-listed when n.Relisted; each gap
//     opened or closed goes to Gap when set;
//   - KindError ends a stream: what it costs the timeline is the caller's
//     to say (Follow notes it), and it is ignored here.
func (r *Recorder) Handle(n listwatch.Notice) {
	switch n.Kind {
	case listwatch.KindEvent:
		r.watched(n)
	case listwatch.KindList:
		r.listed(n)
	case listwatch.KindGapOpen, listwatch.KindGapClose:
		if g, ok := MarkGap(&r.TL.Gaps, n); ok && r.Gap != nil {
			r.Gap(g)
		}
	}
}

func (r *Recorder) watched(n listwatch.Notice) {
	switch o := n.Event.Object.(type) {
	case *corev1.Pod:
		r.podEvent(n.Recv, n.Event.Type, o)
	case *discoveryv1.EndpointSlice:
		r.sliceEvent(n.Recv, n.Event.Type, o)
	case *corev1.Event:
		if n.Event.Type != watch.Deleted {
			r.eventSeen(n.Recv, o, false)
		}
	default:
		r.ingressEvent(n.Recv, n.Event.Type, o)
	}
}

func (r *Recorder) listed(n listwatch.Notice) {
	switch n.Stream {
	case StreamPods:
		r.podList(n.Recv, n.List)
	case StreamEndpointSlices:
		r.sliceList(n.Recv, n.List, n.Initial)
	case ingress.StreamName:
		r.ingressList(n.Recv, n.List, n.Initial)
	case StreamEvents:
		for _, o := range n.List {
			if ev, ok := o.(*corev1.Event); ok {
				r.eventSeen(n.Recv, ev, n.Initial)
			}
		}
	}
}
