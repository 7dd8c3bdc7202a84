package timelinetest

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

// The names of the pod watch's streams (timeline.StreamPods and the
// others), spelled here because the timeline's own tests import this
// package.
const (
	streamPods           = "pod"
	streamEndpointSlices = "EndpointSlices"
	streamEvents         = "Events"
)

// Watched is the notice a stream delivers for one watch notification of
// obj (a Pod, an EndpointSlice or an Event) received at recv.
func Watched(recv time.Time, typ watch.EventType, obj runtime.Object) listwatch.Notice {
	n := listwatch.Notice{Recv: recv, Kind: listwatch.KindEvent, Event: &watch.Event{Type: typ, Object: obj}}
	switch obj.(type) {
	case *corev1.Pod:
		n.Stream = streamPods
	case *discoveryv1.EndpointSlice:
		n.Stream = streamEndpointSlices
	case *corev1.Event:
		n.Stream = streamEvents
	}
	return n
}

// SlicesListed is the notice of a List of the EndpointSlices, received at
// recv; initial marks the stream's first.
func SlicesListed(recv time.Time, slices []discoveryv1.EndpointSlice, initial bool) listwatch.Notice {
	n := listwatch.Notice{Stream: streamEndpointSlices, Recv: recv, Kind: listwatch.KindList, Initial: initial}
	for i := range slices {
		n.List = append(n.List, &slices[i])
	}
	return n
}
