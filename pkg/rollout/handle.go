package rollout

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/kubectl/pkg/util/podutils"

	"github.com/kubectl-graceful/kubectl-graceful/internal/callback"
	"github.com/kubectl-graceful/kubectl-graceful/internal/capacity"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timeline/podset"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// handle feeds one notice to the pods' recorders, the capacity tracker or
// the workload's status. It returns an error only when the pods or the
// workload cannot be watched.
func (f *workloadFollower) handle(_ context.Context, n listwatch.Notice) error {
	return f.set.Handle(n, podset.Watch{Failed: f.streamFailed, Gap: f.gap, Listed: f.listedNotice, Watched: f.watched})
}

func (f *workloadFollower) streamFailed(n listwatch.Notice) error {
	w := f.cfg.Workload
	switch n.Stream {
	case "pod":
		return fmt.Errorf("watching the pods of %s: %w", w, n.Err)
	case "workload":
		return fmt.Errorf("watching %s: %w", w, n.Err)
	}
	if note, ok := f.set.Unseen(n); ok {
		f.r.EndpointsUnseen = f.set.EndpointsUnseen
		f.note(note)
	}
	return nil
}

// gap marks a stream's lost or regained watch on the rollout and on every
// pod being followed, whose verdicts then say their times may be late.
func (f *workloadFollower) gap(n listwatch.Notice) {
	if g, ok := f.set.Gap(n); ok {
		f.r.Gaps = f.set.Gaps
		callback.Call(f.cfg.Printer.Gap, f.r, g)
	}
}

func (f *workloadFollower) listedNotice(n listwatch.Notice) {
	first := !f.listed[n.Stream]
	f.listed[n.Stream] = true
	switch n.Stream {
	case timeline.StreamPods:
		f.podsListed(n.Recv, n.List, n.Initial)
		if n.Initial && first {
			f.announce()
		}
	case timeline.StreamEndpointSlices:
		f.printSamples(f.capacity.List(n.Recv, n.List, n.Initial))
		f.set.SliceList(n.Recv, n.List, n.Initial)
	case timeline.StreamEvents:
		f.set.EventList(n)
	case "workload":
		f.workloadListed(n.Recv, n.List)
	}
}

// announce says what is followed, once the pods are listed.
func (f *workloadFollower) announce() {
	r := f.r
	msg := fmt.Sprintf("following %s in %s: %d pods (selector %s)", r.Workload, r.Workload.Namespace, len(f.set.Recorders()), r.Selector)
	switch {
	case r.ServicesUnseen:
	case len(r.Services) == 0:
		msg += "; no Service selects it"
	default:
		msg += "; Services selecting it: " + strings.Join(r.Services, ", ")
	}
	for _, b := range r.Budgets {
		msg += fmt.Sprintf("; PodDisruptionBudget %s (desiredHealthy %d)", b.Name, b.DesiredHealthy)
	}
	f.say(msg)
}

// podsListed records a List of the workload's pods: new pods get a
// recorder, known ones absent from it were deleted during a gap.
func (f *workloadFollower) podsListed(recv time.Time, list []runtime.Object, initial bool) {
	for _, rec := range f.set.PodList(recv, list, initial, nil) {
		f.added(recv, rec, initial)
	}
	for _, o := range list {
		if p, ok := o.(*corev1.Pod); ok {
			f.readiness(p)
		}
	}
}

// added notes a pod seen for the first time.
func (f *workloadFollower) added(recv time.Time, rec *timeline.Recorder, initial bool) {
	if !initial {
		f.status(recv, rec.Pod().Name, "pod created")
	}
	f.readiness(rec.Pod())
}

// emitted prints a pod's event and starts the rollout's clock at the first
// deletion seen when this command did not start it. The endpoints found by
// the first List are recorded, not printed: they are the state at start,
// one line a pod, not changes.
func (f *workloadFollower) emitted(rec *timeline.Recorder, e timeline.Event) {
	if e.Kind == timeline.KindDeletionSeen {
		if e.Initial {
			f.startAt(f.r.Start, timeline.T0WatchStart)
		} else {
			f.startAt(e.Recv, timeline.T0PodDeletionSeen)
		}
	}
	if e.Initial && e.Kind == timeline.KindEndpointAdded {
		return
	}
	if f.cfg.Printer.PodEvent != nil {
		f.cfg.Printer.PodEvent(f.r, rec.TL, e)
	}
}

func (f *workloadFollower) readiness(pod *corev1.Pod) {
	if podutils.IsPodReady(pod) {
		f.everReady[pod.UID] = true
	}
}

func (f *workloadFollower) watched(n listwatch.Notice) {
	recv, ev := n.Recv, n.Event
	switch o := ev.Object.(type) {
	case *corev1.Pod:
		if rec, added := f.set.PodEvent(recv, ev.Type, o); added {
			f.added(recv, rec, false)
		}
		f.readiness(o)
	case *discoveryv1.EndpointSlice:
		f.set.SliceEvent(recv, ev.Type, o)
		f.printSamples(f.capacity.Slice(recv, ev.Type, o))
	case *corev1.Event:
		f.set.KubeEvent(recv, ev.Type, o)
	default:
		if ev.Type == watch.Deleted {
			f.r.Stalled = fmt.Sprintf("%s was deleted", f.cfg.Workload)
			return
		}
		f.workloadChanged(recv, ev.Object)
	}
}

func (f *workloadFollower) workloadListed(recv time.Time, list []runtime.Object) {
	if len(list) == 0 {
		f.r.Stalled = fmt.Sprintf("%s was deleted", f.cfg.Workload)
		return
	}
	f.workloadChanged(recv, list[0])
}

// workloadChanged reads a new state of the workload: a new generation
// starts the rollout when this command did not, a new replica count moves
// the capacity's target, and kubectl's StatusViewer says whether the
// rollout is done or stalled.
func (f *workloadFollower) workloadChanged(recv time.Time, obj runtime.Object) {
	st, err := stateOf(obj)
	if err != nil {
		f.note(fmt.Sprintf("reading %s: %v", f.cfg.Workload, err))
		return
	}
	if st.generation > f.gen0 {
		f.startAt(recv, timeline.T0GenerationSeen)
	}
	f.printSamples(f.capacity.SetDesired(recv, st.desired))
	f.st = st
	msg, done, err := rolloutStatus(obj, f.cfg.Workload.Kind)
	switch {
	case err != nil && done:
		if !f.noRolloutStatus {
			f.noRolloutStatus = true
			f.note(fmt.Sprintf("%v: the watch ends when no pod is terminating", err))
		}
	case err != nil:
		f.r.Stalled = err.Error()
		f.status(recv, "", "rollout stalled: "+err.Error())
		return
	}
	f.statusDone = done && st.generation >= f.minGen
	if msg != "" && msg != f.r.LastStatus {
		f.r.LastStatus = msg
		f.status(recv, "", msg)
	}
}

// printSamples records the new samples on their tracks and prints them.
func (f *workloadFollower) printSamples(changes []capacity.Change) {
	f.capacity.record(changes)
	for _, c := range changes {
		if f.cfg.Printer.Capacity != nil {
			f.cfg.Printer.Capacity(f.r, c.Service, CapacitySample(c.Sample))
		}
	}
}
