package timeline

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/internal/podspec"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

// Recorder turns watch notifications into timeline events. It keeps the last
// state of the pod, of its endpoint in each EndpointSlice and of each Event,
// so that every notification (and every re-list after a gap) yields only what
// changed. It does no I/O: Handle takes what the pod's streams deliver
// (Follow's, or a program's own), MarkT0 the delete request sent. The pod
// is gone once TL holds a KindPodGone event.
// It is not safe for concurrent use.
type Recorder struct {
	TL *Timeline
	// Emit, when set, receives each event as it is recorded.
	Emit func(Event)

	// Stall, when set, receives each stall as it is marked (see stall).
	Stall func(Gap)
	// Gap, when set, receives each gap of a stream as Handle opens or
	// closes it.
	Gap func(Gap)

	pod    *corev1.Pod
	gone   bool
	slices map[string]sliceEndpoint
	events map[types.UID]int32
	// others holds, for each EndpointSlice seen, its Service and the
	// other pods' ready endpoints in it; othersReady the last count of
	// each Service recorded as an event.
	others      map[string]sliceOthers
	othersReady map[string]int
	// slicesListed is set by the first List of the EndpointSlices: before
	// it, a Service's slices not yet seen are unknown, not empty, so no
	// count of its ready endpoints is claimed.
	slicesListed bool
	// clockSkewed stops stall marking once a change arrived before the
	// server's time for it: the clocks disagree.
	clockSkewed bool
	// ingress is the pod's server in each of the Ingress controller's
	// services that holds it (the stream ingress.StreamName).
	ingress map[string]ingressState
}

// sliceEndpoint is the pod's endpoint state in one EndpointSlice.
type sliceEndpoint struct {
	service string
	state   EndpointState
}

// NewRecorder starts a timeline for pod, as first read by Get or List at
// start. services are the names of the Services that select it.
func NewRecorder(pod *corev1.Pod, services []string, start time.Time) *Recorder {
	tl := &Timeline{
		Namespace: pod.Namespace, Pod: pod.Name, UID: string(pod.UID),
		Start: start, Services: services, PreStop: map[string]PreStop{}, ExecPreStop: map[string]bool{},
		StopSignals: map[string]StopSignal{},
	}
	readStopSignals(tl.StopSignals, pod)
	for _, ip := range pod.Status.PodIPs {
		tl.PodIPs = append(tl.PodIPs, ip.IP)
	}
	tl.GracePeriodSeconds = ptr.Deref(pod.Spec.TerminationGracePeriodSeconds, 0)
	tl.PauseSignals, tl.KillsByName = pauseSignals(pod.Spec), killsByName(pod.Spec)
	shared := ptr.Deref(pod.Spec.ShareProcessNamespace, false)
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		tl.Containers = append(tl.Containers, c.Name)
		tl.PreStop[c.Name] = preStopOf(c, shared)
		tl.ExecPreStop[c.Name] = execPreStop(c)
	}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if podspec.IsSidecar(*c) {
			tl.NativeSidecars = append(tl.NativeSidecars, c.Name)
			tl.PreStop[c.Name] = preStopOf(c, shared)
			tl.ExecPreStop[c.Name] = execPreStop(c)
		}
	}
	r := &Recorder{TL: tl, pod: pod.DeepCopy(), slices: map[string]sliceEndpoint{}, events: map[types.UID]int32{},
		others: map[string]sliceOthers{}, othersReady: map[string]int{}, ingress: map[string]ingressState{}}
	if pod.DeletionTimestamp != nil {
		tl.AlreadyTerminating = true
		tl.T0, tl.T0Source = start, T0WatchStart
		r.deletionSeen(start, pod, true)
	}
	return r
}

// Pod returns the last state of the pod seen.
func (r *Recorder) Pod() *corev1.Pod { return r.pod }

func (r *Recorder) add(e Event) {
	r.TL.Events = append(r.TL.Events, e)
	if r.Emit != nil {
		r.Emit(e)
	}
	r.checkStall(e)
}

// MarkT0 sets the delete request's local time when this command sent it and
// records it as an event; source is T0DeleteSent or T0EvictionAccepted.
func (r *Recorder) MarkT0(at time.Time, source T0Source, message string) {
	if r.TL.T0.IsZero() {
		r.TL.T0, r.TL.T0Source = at, source
	}
	r.add(Event{Recv: at, Track: ControlPlane, Kind: KindDeleteSent, Message: message})
}

// note adds a remark for the reader.
func (r *Recorder) note(s string) { r.TL.Notes = append(r.TL.Notes, s) }

// podEvent records a pod watch notification received at recv. Objects of
// another UID (a new pod that reuses the name) are ignored.
func (r *Recorder) podEvent(recv time.Time, typ watch.EventType, pod *corev1.Pod) {
	if string(pod.UID) != r.TL.UID || r.gone {
		return
	}
	r.podChanged(recv, pod)
	if typ == watch.Deleted {
		r.markGone(recv, "pod object deleted")
	}
}

// podList records the result of a List of the pod (at start, or after a
// gap): absent means it was deleted during the gap.
func (r *Recorder) podList(recv time.Time, list []runtime.Object) {
	for _, o := range list {
		if p, ok := o.(*corev1.Pod); ok && string(p.UID) == r.TL.UID {
			r.podChanged(recv, p)
			return
		}
	}
	r.markGone(recv, "pod object deleted (seen by re-list)")
}

func (r *Recorder) markGone(recv time.Time, msg string) {
	if r.gone {
		return
	}
	r.gone = true
	r.add(Event{Recv: recv, Track: ControlPlane, Kind: KindPodGone, Message: msg})
}

func (r *Recorder) deletionSeen(recv time.Time, pod *corev1.Pod, initial bool) {
	tl := r.TL
	if tl.T0.IsZero() {
		tl.T0, tl.T0Source = recv, T0DeletionSeen
	}
	grace := ptr.Deref(pod.DeletionGracePeriodSeconds, 0)
	tl.GracePeriodSeconds = grace
	deadline := pod.DeletionTimestamp.Time
	tl.RequestServer = deadline.Add(-time.Duration(grace) * time.Second)
	r.add(Event{Recv: recv, Server: tl.RequestServer, Track: ControlPlane, Kind: KindDeletionSeen, Initial: initial,
		Message: fmt.Sprintf("deletionTimestamp set: grace period %d s, SIGKILL deadline %s", grace, deadline.UTC().Format("15:04:05"))})
}

// podChanged compares pod with the last state and records each difference.
func (r *Recorder) podChanged(recv time.Time, pod *corev1.Pod) {
	old := r.pod
	r.pod = pod.DeepCopy()
	readStopSignals(r.TL.StopSignals, pod)
	if old.DeletionTimestamp == nil && pod.DeletionTimestamp != nil {
		r.deletionSeen(recv, pod, false)
	} else if old.DeletionGracePeriodSeconds != nil && pod.DeletionGracePeriodSeconds != nil &&
		*pod.DeletionGracePeriodSeconds < *old.DeletionGracePeriodSeconds {
		r.graceShortened(recv, pod)
	}
	r.conditionsChanged(recv, old, pod)
	r.containersChanged(recv, old, pod)
	if old.Status.Phase != pod.Status.Phase {
		r.add(Event{Recv: recv, Track: Kubelet, Kind: KindPhase, Message: "phase " + string(pod.Status.Phase)})
	}
}

// graceShortened records a later delete with a shorter grace period. The
// kubelet's own final delete (grace 0, once the pod is terminal) removes the
// object; it does not move the SIGKILL deadline, which has passed or no
// longer matters (kubelet status_manager: canBeDeleted, then Delete with
// GracePeriodSeconds 0).
func (r *Recorder) graceShortened(recv time.Time, pod *corev1.Pod) {
	g := *pod.DeletionGracePeriodSeconds
	if g == 0 && (pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed) {
		r.add(Event{Recv: recv, Server: pod.DeletionTimestamp.Time, Track: ControlPlane, Kind: KindGraceShortened,
			Message: "final delete (grace period 0) after the pod turned " + string(pod.Status.Phase)})
		return
	}
	r.TL.GracePeriodSeconds = g
	r.add(Event{Recv: recv, Server: pod.DeletionTimestamp.Time, Track: ControlPlane, Kind: KindGraceShortened,
		Message: fmt.Sprintf("grace period shortened to %d s, SIGKILL deadline %s", g, pod.DeletionTimestamp.UTC().Format("15:04:05"))})
}

func (r *Recorder) conditionsChanged(recv time.Time, old, pod *corev1.Pod) {
	for _, c := range pod.Status.Conditions {
		prev := podspec.Condition(old, c.Type)
		if prev != nil && prev.Status == c.Status && prev.Reason == c.Reason {
			continue
		}
		track := Kubelet
		if c.Type == corev1.DisruptionTarget {
			track = ControlPlane
		}
		msg := fmt.Sprintf("condition %s=%s", c.Type, c.Status)
		if c.Reason != "" {
			msg += " (" + c.Reason + ")"
		}
		if c.Message != "" && c.Type == corev1.DisruptionTarget {
			msg += ": " + c.Message
		}
		server := c.LastTransitionTime.Time
		if prev != nil && prev.Status == c.Status {
			// Only the reason changed (a real kubelet turns Initialized=True
			// into Initialized=True (PodCompleted) when the pod ends): the
			// transition time is the old one, and printed as this change's
			// time it would look like a clock error.
			msg += fmt.Sprintf(": reason changed, status %s since %s", c.Status, server.UTC().Format("15:04:05"))
			server = time.Time{}
		}
		r.add(Event{Recv: recv, Server: server, Track: track, Kind: KindCondition, Message: msg,
			sandboxDown: c.Type == corev1.PodReadyToStartContainers && c.Status == corev1.ConditionFalse})
	}
}

// findStatus returns the status of the container or init container name.
func findStatus(pod *corev1.Pod, name string) *corev1.ContainerStatus {
	for _, list := range [][]corev1.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses} {
		for i := range list {
			if list[i].Name == name {
				return &list[i]
			}
		}
	}
	return nil
}

func (r *Recorder) containersChanged(recv time.Time, old, pod *corev1.Pod) {
	statuses := pod.Status.ContainerStatuses
	for _, cs := range pod.Status.InitContainerStatuses {
		if slices.Contains(r.TL.NativeSidecars, cs.Name) {
			statuses = append(statuses[:len(statuses):len(statuses)], cs)
		}
	}
	for _, cs := range statuses {
		prev := findStatus(old, cs.Name)
		if t := cs.State.Terminated; t != nil && (prev == nil || prev.State.Terminated == nil) {
			code := t.ExitCode
			// The kubelet reports an exit up to about 1 s after the
			// process ended (exitReportLag); finishedAt is whole seconds.
			msg := fmt.Sprintf("container %s exited %d", cs.Name, code)
			if t.Reason != "" {
				msg += " (" + t.Reason + ")"
			}
			if m := exitMeaning(code); m != "" {
				msg += ": " + m
			}
			msg += " (as reported by the kubelet, after the process ended)"
			r.add(Event{Recv: recv, Server: t.FinishedAt.Time, Track: Kubelet, Kind: KindContainerExit,
				Container: cs.Name, ExitCode: &code, Message: msg, reason: t.Reason})
			continue
		}
		if prev != nil && prev.Ready != cs.Ready {
			r.add(Event{Recv: recv, Track: Kubelet, Kind: KindContainerReady, Container: cs.Name,
				Message: fmt.Sprintf("container %s ready=%t", cs.Name, cs.Ready)})
		}
	}
}

// exitMeaning explains an exit code the way the kubelet's runtimes produce
// them: 128+N means killed by signal N (143 SIGTERM, 137 SIGKILL).
func exitMeaning(code int32) string {
	switch code {
	case 0:
		return "clean exit"
	case 143:
		return "killed by SIGTERM (128+15): the app did not handle it, its default action ended the process"
	case 137:
		return "killed by SIGKILL (128+9): by the kubelet at the grace deadline, or earlier by the OOM killer or with the pod's sandbox"
	}
	return ""
}

// endpointOf returns the pod's endpoint conditions in slice, or nil.
func endpointOf(slice *discoveryv1.EndpointSlice, uid string) *EndpointState {
	for _, ep := range slice.Endpoints {
		if ep.TargetRef == nil || string(ep.TargetRef.UID) != uid {
			continue
		}
		ready := ptr.Deref(ep.Conditions.Ready, true)
		return &EndpointState{Ready: ready, Serving: ptr.Deref(ep.Conditions.Serving, ready), Terminating: ptr.Deref(ep.Conditions.Terminating, false)}
	}
	return nil
}

// sliceEvent records an EndpointSlice watch notification received at recv.
// Only the endpoint whose targetRef.uid is the pod's counts; slices that
// never held it are ignored.
func (r *Recorder) sliceEvent(recv time.Time, typ watch.EventType, slice *discoveryv1.EndpointSlice) {
	var st *EndpointState
	service := slice.Labels[discoveryv1.LabelServiceName]
	if typ != watch.Deleted {
		st = endpointOf(slice, r.TL.UID)
		r.others[slice.Name] = sliceOthers{service: service, ready: othersReadyIn(slice, r.TL.UID)}
	} else {
		delete(r.others, slice.Name)
	}
	r.sliceState(recv, slice.Name, service, st, false)
	r.servicesReady(recv, false)
}

// sliceList records a List of the EndpointSlices (at start, or after a
// gap): slices that held the endpoint and are absent lost it.
func (r *Recorder) sliceList(recv time.Time, list []runtime.Object, initial bool) {
	r.slicesListed = true
	seen := map[string]bool{}
	for _, o := range list {
		s, ok := o.(*discoveryv1.EndpointSlice)
		if !ok {
			continue
		}
		seen[s.Name] = true
		service := s.Labels[discoveryv1.LabelServiceName]
		r.others[s.Name] = sliceOthers{service: service, ready: othersReadyIn(s, r.TL.UID)}
		r.sliceState(recv, s.Name, service, endpointOf(s, r.TL.UID), initial)
	}
	for name, prev := range r.slices {
		if !seen[name] {
			r.sliceState(recv, name, prev.service, nil, initial)
		}
	}
	maps.DeleteFunc(r.others, func(name string, _ sliceOthers) bool { return !seen[name] })
	r.servicesReady(recv, initial)
}

func (r *Recorder) sliceState(recv time.Time, slice, service string, st *EndpointState, initial bool) {
	prev, had := r.slices[slice]
	e := Event{Recv: recv, Track: ControlPlane, Service: service, Slice: slice, Initial: initial}
	switch {
	case st == nil && !had:
		return
	case st == nil:
		delete(r.slices, slice)
		e.Kind, e.Message = KindEndpointRemoved, fmt.Sprintf("EndpointSlice %s: endpoint removed", slice)
	case !had:
		r.slices[slice] = sliceEndpoint{service: service, state: *st}
		r.addService(service)
		e.Kind, e.Endpoint = KindEndpointAdded, st
		e.Message = fmt.Sprintf("EndpointSlice %s: endpoint %s", slice, st)
	case prev.state != *st:
		// The pod and EndpointSlice watches are not ordered against each
		// other: when someone else deletes the pod, its endpoint can be seen
		// terminating before the deletion itself. That is the first sign of
		// the deletion, so the clock starts there.
		if st.Terminating && !initial && r.TL.T0.IsZero() {
			r.TL.T0, r.TL.T0Source = recv, T0DeletionSeen
		}
		r.slices[slice] = sliceEndpoint{service: service, state: *st}
		e.Kind, e.Endpoint = KindEndpointChanged, st
		e.Message = fmt.Sprintf("EndpointSlice %s: endpoint %s", slice, st)
	default:
		return
	}
	r.add(e)
}

// addService records a Service found through its EndpointSlice, for when the
// Services themselves could not be listed.
func (r *Recorder) addService(name string) {
	if name == "" || slices.Contains(r.TL.Services, name) {
		return
	}
	r.TL.Services = append(r.TL.Services, name)
	sort.Strings(r.TL.Services)
}

// String renders the conditions as "ready=false serving=true terminating=true".
func (s EndpointState) String() string {
	return fmt.Sprintf("ready=%t serving=%t terminating=%t", s.Ready, s.Serving, s.Terminating)
}

// recordEvent records a core/v1 Event about the pod (beforeWatch marks one
// that happened before the watch started). The kubelet updates an
// Event's count when it repeats, so a MODIFIED with a higher count is a new
// occurrence; the same count again (a re-list) is not.
func (r *Recorder) recordEvent(recv time.Time, ev *corev1.Event, beforeWatch bool) {
	if string(ev.InvolvedObject.UID) != r.TL.UID {
		return
	}
	count := cmp.Or(ev.Count, 1)
	if prev, ok := r.events[ev.UID]; ok && prev >= count {
		return
	}
	r.events[ev.UID] = count
	e := Event{Recv: recv, Server: eventTime(ev), Track: ControlPlane, Kind: KindOtherEvent, Initial: beforeWatch,
		Container: containerOfFieldPath(ev.InvolvedObject.FieldPath), stored: storedTime(ev)}
	if ev.Source.Component == "kubelet" || ev.ReportingController == "kubelet" {
		e.Track = Kubelet
	}
	for _, k := range []Kind{KindKilling, KindPreStopFailed, KindUnhealthy, KindExceededGrace} {
		if ev.Reason == k.name() { // kindNames: the Event's own reason
			e.Kind, e.Track = k, Kubelet
		}
	}
	e.Message = fmt.Sprintf("Event %s %s: %s", ev.Type, ev.Reason, ev.Message)
	if count > 1 {
		e.Message += fmt.Sprintf(" (x%d)", count)
	}
	r.add(e)
}

// seedEvent remembers an Event that existed before the watch started, so
// that only its later repeats are recorded.
func (r *Recorder) seedEvent(ev *corev1.Event) {
	r.events[ev.UID] = max(r.events[ev.UID], ev.Count, 1)
}

// eventTime returns the Event's most precise time: eventTime (microseconds)
// when set, else lastTimestamp, else firstTimestamp (whole seconds).
func eventTime(ev *corev1.Event) time.Time {
	switch {
	case !ev.EventTime.IsZero():
		return ev.EventTime.Time
	case !ev.LastTimestamp.IsZero():
		return ev.LastTimestamp.Time
	}
	return ev.FirstTimestamp.Time
}

// storedTime returns the API server's latest time for writing ev: its
// creationTimestamp or the time of its last managed-fields update (both
// set by the server, whole seconds). A reporter that sends an Event late
// (the kubelet's recorder retries under load) makes it later than the
// Event's own time.
func storedTime(ev *corev1.Event) time.Time {
	t := ev.CreationTimestamp.Time
	for _, mf := range ev.ManagedFields {
		if mf.Time != nil && mf.Time.After(t) {
			t = mf.Time.Time
		}
	}
	return t
}

// containerOfFieldPath extracts NAME from "spec.containers{NAME}" or
// "spec.initContainers{NAME}" (the kubelet's reference to a container).
func containerOfFieldPath(p string) string {
	for _, prefix := range []string{"spec.containers{", "spec.initContainers{"} {
		if len(p) > len(prefix)+1 && p[:len(prefix)] == prefix && p[len(p)-1] == '}' {
			return p[len(prefix) : len(p)-1]
		}
	}
	return ""
}

// MarkGap records on gaps a gap notice of stream n.Stream, with
// n.Reason: a KindGapOpen opens the stream's gap at n.Recv (false when it
// is open already), a KindGapClose closes it at n.Recv, re-listed when
// n.Relisted (false when none was open). It returns the gap as it then
// stands. Recorder.Handle marks its pod's gaps with it, and a watch the
// gaps of a stream it keeps apart.
func MarkGap(gaps *[]Gap, n listwatch.Notice) (Gap, bool) {
	for i := len(*gaps) - 1; i >= 0; i-- {
		g := &(*gaps)[i]
		if g.Stream != n.Stream || !g.To.IsZero() {
			continue
		}
		if n.Kind != listwatch.KindGapClose {
			return Gap{}, false
		}
		g.To, g.Relisted = n.Recv, g.Relisted || n.Relisted
		return *g, true
	}
	if n.Kind != listwatch.KindGapOpen {
		return Gap{}, false
	}
	g := Gap{Stream: n.Stream, From: n.Recv, Reason: n.Reason}
	*gaps = append(*gaps, g)
	return g, true
}

// Wants reports whether the Recorder is given a slice: one of its pod's
// namespace, of a Service it tracks or holding its endpoint. The others
// cannot change its verdict, and giving every slice of a cluster to every
// pod of a rollout or a node watch would grow as pods times slices.
func (r *Recorder) Wants(slice *discoveryv1.EndpointSlice) bool {
	if slice.Namespace != "" && r.pod.Namespace != "" && slice.Namespace != r.pod.Namespace {
		return false
	}
	if slices.Contains(r.TL.Services, slice.Labels[discoveryv1.LabelServiceName]) {
		return true
	}
	return endpointOf(slice, r.TL.UID) != nil || r.slices[slice.Name].service != ""
}

// eventSeen records a core/v1 Event about the pod, from a watch
// notification or a List; initial is set for the watch's first List. A re-list after a gap records it (the
// recorder drops repeats by count: the kubelet updates an Event's count
// when it repeats). The first List only remembers it, unless the pod was
// already terminating and the Event is from its termination: then it is
// shown, marked as before the watch.
func (r *Recorder) eventSeen(recv time.Time, ev *corev1.Event, initial bool) {
	tl := r.TL
	switch {
	case !initial:
		r.recordEvent(recv, ev, false)
	case tl.AlreadyTerminating && !eventTime(ev).Before(tl.RequestServer.Add(-time.Second)):
		r.recordEvent(recv, ev, true)
	default:
		r.seedEvent(ev)
	}
}
