// Package podset holds the timeline.Recorders of the pods a rollout or a
// node watch follows, fed by the streams they share. It is glue between
// pkg/timeline and the watches built on it, not part of what pkg/ offers.
package podset

import (
	"fmt"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/internal/ingress"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// Set is the timeline.Recorders of many pods fed by the same streams (pods,
// EndpointSlices, Events), as the rollout and node watches follow them:
// one Recorder a pod, created when the pod is first seen, each given every
// EndpointSlice and the Events of its own pod (matched by UID), and every
// gap of the streams. It does no I/O.
type Set struct {
	// Start is the watch's start: the recorders' start for the pods found
	// by the first List.
	Start time.Time
	// Services returns the Services a new pod's Recorder tracks.
	Services func(*corev1.Pod) []string
	// Emit receives every event of every pod, as recorded.
	Emit func(rec *timeline.Recorder, e timeline.Event)
	// Stall, when set, receives each stall a pod's Recorder marks
	// (timeline.Recorder.Stall): a watch connected but late, which the
	// streams' own gaps do not show.
	Stall func(g timeline.Gap)
	// Gaps are the streams' gaps so far, open ones with a zero To.
	Gaps []timeline.Gap
	// EndpointsUnseen and EventsUnseen are set when those streams failed:
	// every Recorder, present and future, is marked.
	EndpointsUnseen, EventsUnseen bool
	// IngressAPI is the Ingress controller's API the streams read, ""
	// when none: every Recorder, present and future, is told
	// (timeline.Timeline.IngressAPI), and IngressUnseen once it failed.
	IngressAPI    string
	IngressUnseen bool

	recs       map[types.UID]*timeline.Recorder
	order      []*timeline.Recorder
	slices     map[types.UID]*discoveryv1.EndpointSlice
	podsListed bool
	// slicesListed is set by the first List of the EndpointSlices: a
	// Recorder started before it is given no slices, which would read as
	// a List of none (no ready endpoint), but gets them with that List.
	slicesListed bool
	heldEvents   *listwatch.Notice
	// proxy is the last List of the Ingress controller's services, kept
	// up to date by its events, for the Recorders started after it.
	proxy map[string]runtime.Object
}

// Recorders returns every pod's Recorder in the order first seen.
func (s *Set) Recorders() []*timeline.Recorder { return s.order }

// Slices returns the last state of every EndpointSlice the Set was given,
// by UID.
func (s *Set) Slices() map[types.UID]*discoveryv1.EndpointSlice { return s.slices }

// Add starts a Recorder for a pod seen for the first time (returning the
// known one otherwise). initial marks a pod found by the first List.
func (s *Set) Add(recv time.Time, pod *corev1.Pod, initial bool) *timeline.Recorder {
	if rec := s.recs[pod.UID]; rec != nil {
		return rec
	}
	if s.recs == nil {
		s.recs = map[types.UID]*timeline.Recorder{}
	}
	start := recv
	if initial {
		start = s.Start
	}
	var services []string
	if s.Services != nil {
		services = s.Services(pod)
	}
	rec := timeline.NewRecorder(pod, services, start)
	rec.TL.EndpointsUnseen, rec.TL.EventsUnseen = s.EndpointsUnseen, s.EventsUnseen
	rec.TL.IngressAPI, rec.TL.IngressUnseen = s.IngressAPI, s.IngressUnseen
	for _, g := range s.Gaps {
		if g.To.IsZero() {
			rec.TL.Gaps = append(rec.TL.Gaps, g)
		}
	}
	rec.Emit = func(e timeline.Event) { s.emit(rec, e) }
	rec.Stall = s.Stall
	s.recs[pod.UID] = rec
	s.order = append(s.order, rec)
	for _, e := range rec.TL.Events { // a deletion found at start
		s.emit(rec, e)
	}
	if s.slicesListed {
		rec.Handle(s.slicesFor(rec, recv, initial))
	}
	if s.proxy != nil {
		// The Ingress controller's services as last seen, as its first List.
		rec.Handle(listwatch.Notice{Stream: ingress.StreamName, Recv: recv, Kind: listwatch.KindList, Initial: true, List: slices.Collect(maps.Values(s.proxy))})
	}
	return rec
}

// Ingress gives a notice of the Ingress controller's stream (a List or a
// watch event, ingress.StreamName) to every Recorder, each matching the
// proxy's servers to its own pod, and keeps the services for the
// Recorders started later, which take them as their first List.
func (s *Set) Ingress(n listwatch.Notice) {
	switch {
	case n.Kind == listwatch.KindList:
		s.proxy = map[string]runtime.Object{}
		for _, o := range n.List {
			s.proxy[objectName(o)] = o
		}
	case s.proxy != nil && n.Event.Type == watch.Deleted:
		delete(s.proxy, objectName(n.Event.Object))
	case s.proxy != nil:
		s.proxy[objectName(n.Event.Object)] = n.Event.Object
	}
	for _, rec := range s.order {
		rec.Handle(n)
	}
}

func objectName(o runtime.Object) string {
	if m, err := meta.Accessor(o); err == nil {
		return m.GetName()
	}
	return ""
}

func (s *Set) emit(rec *timeline.Recorder, e timeline.Event) {
	if s.Emit != nil {
		s.Emit(rec, e)
	}
}

// PodEvent records a pod's watch notification, starting a Recorder for a
// pod not seen before (unless it is a deletion); added says so.
func (s *Set) PodEvent(recv time.Time, typ watch.EventType, pod *corev1.Pod) (rec *timeline.Recorder, added bool) {
	if rec = s.recs[pod.UID]; rec != nil {
		rec.Handle(watched(recv, typ, pod))
		return rec, false
	}
	if typ == watch.Deleted {
		return nil, false
	}
	return s.Add(recv, pod, false), true
}

// PodList records a List of the pods: new pods get a Recorder (returned),
// known ones absent from it were deleted during a gap. covers, when not
// nil, says which known pods the List is of (a List of one node's pods
// says nothing of another node's): only those can be missing from it. The
// Events held until the first pods' List are recorded after it.
func (s *Set) PodList(recv time.Time, list []runtime.Object, initial bool, covers func(*timeline.Recorder) bool) []*timeline.Recorder {
	var added []*timeline.Recorder
	for _, o := range list {
		if p, ok := o.(*corev1.Pod); ok && s.recs[p.UID] == nil {
			added = append(added, s.Add(recv, p, initial))
		}
	}
	listed := listwatch.Notice{Stream: timeline.StreamPods, Recv: recv, Kind: listwatch.KindList, List: list, Initial: initial}
	for _, rec := range s.order {
		if covers == nil || covers(rec) {
			rec.Handle(listed)
		}
	}
	if initial && !s.podsListed {
		s.podsListed = true
		if s.heldEvents != nil {
			s.EventList(*s.heldEvents)
			s.heldEvents = nil
		}
	}
	return added
}

// SliceEvent gives an EndpointSlice's notification to every Recorder.
func (s *Set) SliceEvent(recv time.Time, typ watch.EventType, slice *discoveryv1.EndpointSlice) {
	if s.slices == nil {
		s.slices = map[types.UID]*discoveryv1.EndpointSlice{}
	}
	if typ == watch.Deleted {
		delete(s.slices, slice.UID)
	} else {
		s.slices[slice.UID] = slice
	}
	for _, rec := range s.order {
		if rec.Wants(slice) {
			rec.Handle(watched(recv, typ, slice))
		}
	}
}

// SliceList gives a List of the EndpointSlices to every Recorder.
func (s *Set) SliceList(recv time.Time, list []runtime.Object, initial bool) {
	s.slicesListed = true
	s.slices = map[types.UID]*discoveryv1.EndpointSlice{}
	for _, o := range list {
		if sl, ok := o.(*discoveryv1.EndpointSlice); ok {
			s.slices[sl.UID] = sl
		}
	}
	for _, rec := range s.order {
		rec.Handle(s.slicesFor(rec, recv, initial))
	}
}

// slicesFor is a List of the last state of the slices the Recorder wants.
func (s *Set) slicesFor(rec *timeline.Recorder, recv time.Time, initial bool) listwatch.Notice {
	n := listwatch.Notice{Stream: timeline.StreamEndpointSlices, Recv: recv, Kind: listwatch.KindList, Initial: initial}
	for _, sl := range s.slices {
		if rec.Wants(sl) {
			n.List = append(n.List, sl)
		}
	}
	return n
}

// watched is the notice of one watch notification, as a Stream delivers it.
func watched(recv time.Time, typ watch.EventType, obj runtime.Object) listwatch.Notice {
	return listwatch.Notice{Recv: recv, Kind: listwatch.KindEvent, Event: &watch.Event{Type: typ, Object: obj}}
}

// EventList records a List of Events for the pods they are about (the
// first one is held until the pods are listed, so that no Event is lost
// for a pod not known yet).
func (s *Set) EventList(n listwatch.Notice) {
	if n.Initial && !s.podsListed {
		s.heldEvents = &n
		return
	}
	for _, o := range n.List {
		if ev, ok := o.(*corev1.Event); ok {
			if rec := s.recs[ev.InvolvedObject.UID]; rec != nil {
				one := n
				one.Stream, one.List = timeline.StreamEvents, []runtime.Object{ev}
				rec.Handle(one)
			}
		}
	}
}

// KubeEvent records an Event's notification for the pod it is about.
func (s *Set) KubeEvent(recv time.Time, typ watch.EventType, ev *corev1.Event) {
	if rec := s.recs[ev.InvolvedObject.UID]; rec != nil {
		rec.Handle(watched(recv, typ, ev))
	}
}

// Unseen marks the EndpointSlices or Events stream of n, a KindError, as
// failed on every Recorder, present and future, and returns the note that
// says what is missing; ok is false for any other stream.
func (s *Set) Unseen(n listwatch.Notice) (note string, ok bool) {
	switch n.Stream {
	case timeline.StreamEndpointSlices:
		s.EndpointsUnseen, note = true, fmt.Sprintf("cannot watch EndpointSlices (%v): no endpoint track and no capacity track, the race cannot be judged", n.Err)
	case timeline.StreamEvents:
		s.EventsUnseen, note = true, fmt.Sprintf("cannot watch Events (%v): Killing and FailedPreStopHook are not seen, SIGTERM is estimated from the deletion", n.Err)
	case ingress.StreamName:
		s.IngressUnseen, note = true, fmt.Sprintf("cannot read the Ingress controller's API at %s (%v): when it stopped sending each pod new requests is not seen", s.IngressAPI, n.Err)
	default:
		return "", false
	}
	for _, rec := range s.order {
		rec.TL.EndpointsUnseen = rec.TL.EndpointsUnseen || s.EndpointsUnseen
		rec.TL.EventsUnseen = rec.TL.EventsUnseen || s.EventsUnseen
		rec.TL.IngressUnseen = rec.TL.IngressUnseen || s.IngressUnseen
	}
	return note, true
}

// Gap opens (KindGapOpen) or closes (KindGapClose) the gap of n's stream
// on every Recorder and returns it; false when that stream's gap is open
// already, or none is open to close.
func (s *Set) Gap(n listwatch.Notice) (timeline.Gap, bool) {
	g, ok := timeline.MarkGap(&s.Gaps, n)
	if ok {
		for _, rec := range s.order {
			rec.Handle(n)
		}
	}
	return g, ok
}

// Watch is what a watch does with each kind of notice the Set does not
// take whole.
type Watch struct {
	Failed  func(listwatch.Notice) error
	Gap     func(listwatch.Notice)
	Listed  func(listwatch.Notice)
	Watched func(listwatch.Notice)
}

// Handle gives n to the Set when it is a List or an event of the Ingress
// controller's stream (Ingress), and otherwise to w's func of its kind.
// Only Failed's error is returned.
func (s *Set) Handle(n listwatch.Notice, w Watch) error {
	if n.Stream == ingress.StreamName && (n.Kind == listwatch.KindList || n.Kind == listwatch.KindEvent) {
		s.Ingress(n)
		return nil
	}
	switch n.Kind {
	case listwatch.KindError:
		return w.Failed(n)
	case listwatch.KindGapOpen, listwatch.KindGapClose:
		w.Gap(n)
	case listwatch.KindList:
		w.Listed(n)
	case listwatch.KindEvent:
		w.Watched(n)
	}
	return nil
}
