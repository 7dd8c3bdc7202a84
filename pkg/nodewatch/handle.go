package nodewatch

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/internal/callback"
	"github.com/kubectl-graceful/kubectl-graceful/internal/selecting"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timeline/podset"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// handle feeds one notice to the pods' recorders, the capacity trackers or
// the nodes. It returns an error only when the pods cannot be watched.
func (f *follower) handle(ctx context.Context, n listwatch.Notice) error {
	return f.set.Handle(n, podset.Watch{
		Failed:  f.streamFailed,
		Gap:     f.gap,
		Listed:  func(n listwatch.Notice) { f.listedNotice(ctx, n) },
		Watched: func(n listwatch.Notice) { f.watched(ctx, n.Recv, n.Event) },
	})
}

func (f *follower) streamFailed(n listwatch.Notice) error {
	note, shared := f.set.Unseen(n)
	switch {
	case shared:
		f.note(note)
	case n.Stream == streamBudgets:
		f.w.BudgetsUnseen = true
		f.note(fmt.Sprintf("cannot watch PodDisruptionBudgets (%v): no workload's time below its budget's desiredHealthy can be told", n.Err))
	case n.Stream == streamNodeEvents:
		f.note(fmt.Sprintf("cannot watch the Events about the nodes (%v): the drainers' own Events are not on the timeline", n.Err))
	case n.Stream == "nodes":
		f.note(fmt.Sprintf("cannot watch the nodes (%v): a node deleted while watched is not seen", n.Err))
	default:
		return fmt.Errorf("watching the %s: %w", strings.Replace(n.Stream, "pod", "pods", 1), n.Err)
	}
	f.listed[n.Stream] = true
	return nil
}

// gap marks a stream's lost (open) or regained watch. A pods' stream is
// one node's: its gap is marked on that node's pods only, and kept apart
// (nodeGaps) from the shared streams' gaps the pod set keeps.
func (f *follower) gap(n listwatch.Notice) {
	node, isPods := strings.CutPrefix(n.Stream, timeline.StreamPods+" on ")
	var g timeline.Gap
	var ok bool
	switch {
	case n.Stream == streamNodeEvents:
		// Events emitted in the gap are seen only if the re-list still finds them.
		if n.Kind == listwatch.KindGapOpen {
			f.note(fmt.Sprintf("the watch of the Events about the nodes was lost (%s): Events emitted until it is back may be missed", n.Reason))
		} else {
			f.note("the watch of the Events about the nodes is back")
		}
		return
	case n.Stream == streamBudgets:
		// Kept apart from the pods' gaps: a budget's status is no fact
		// of a pod's race.
		g, ok = timeline.MarkGap(&f.budgetGaps, n)
	case !isPods:
		g, ok = f.set.Gap(n)
	default:
		g, ok = f.nodeGap(node, n)
	}
	if ok {
		callback.Call(f.cfg.Printer.Gap, f.w, g)
	}
}

// nodeGap opens (KindGapOpen) or closes the gap of one node's pods' watch
// on its pods.
func (f *follower) nodeGap(node string, n listwatch.Notice) (timeline.Gap, bool) {
	i, seen := f.nodeGapOpen[node]
	open := seen && f.nodeGaps[i].To.IsZero()
	onPods := n
	onPods.Stream = timeline.StreamPods
	switch {
	case n.Kind == listwatch.KindGapOpen && !open:
		onPods.Reason = "pods on " + node + ": " + n.Reason
		i = len(f.nodeGaps)
		f.nodeGapOpen[node] = i
		f.nodeGaps = append(f.nodeGaps, timeline.Gap{Stream: onPods.Stream, From: n.Recv, Reason: onPods.Reason})
	case n.Kind == listwatch.KindGapClose && open:
		f.nodeGaps[i].To, f.nodeGaps[i].Relisted = n.Recv, n.Relisted
	default:
		return timeline.Gap{}, false
	}
	for _, rec := range f.set.Recorders() {
		if f.nodeOf[types.UID(rec.TL.UID)] == node {
			rec.Handle(onPods)
		}
	}
	return f.nodeGaps[i], true
}

func (f *follower) listedNotice(ctx context.Context, n listwatch.Notice) {
	switch node, isPods := strings.CutPrefix(n.Stream, timeline.StreamPods+" on "); {
	case isPods:
		f.podsListed(ctx, node, n)
	case n.Stream == timeline.StreamEndpointSlices:
		f.set.SliceList(n.Recv, n.List, n.Initial)
		for _, c := range f.capacity {
			f.samples(c.tracker.List(n.Recv, f.slicesOf(c), n.Initial), c)
		}
	case n.Stream == timeline.StreamEvents:
		f.set.EventList(n)
	case n.Stream == "nodes":
		f.nodesListed(ctx, n.Recv, n.List)
	case n.Stream == streamBudgets:
		f.budgetsListed(n.Recv, n.List, n.Initial)
	case n.Stream == streamNodeEvents:
		f.nodeEventsListed(n.Recv, n.List, n.Initial)
	}
	if n.Initial {
		f.listed[n.Stream] = true
	}
}

// podsListed records a List of one node's pods; DaemonSet and mirror pods
// are left out.
func (f *follower) podsListed(ctx context.Context, node string, n listwatch.Notice) {
	keep := make([]runtime.Object, 0, len(n.List))
	for _, o := range n.List {
		if p, ok := o.(*corev1.Pod); ok && !excepted(p) {
			f.place(ctx, node, p)
			keep = append(keep, p)
		}
	}
	// The List is of this node's pods only: another node's are not gone
	// for being absent from it.
	onNode := func(rec *timeline.Recorder) bool { return f.nodeOf[types.UID(rec.TL.UID)] == node }
	for _, rec := range f.set.PodList(n.Recv, keep, n.Initial, onNode) {
		f.register(rec)
	}
}

// register adds a new Recorder's timeline to its workload's record.
func (f *follower) register(rec *timeline.Recorder) {
	if r := f.rolloutOf[types.UID(rec.TL.UID)]; r != nil {
		f.w.pods[rec.TL] = podPlace{node: f.nodeOf[types.UID(rec.TL.UID)], workload: r}
		r.Pods = append(r.Pods, rec.TL)
	}
}

// place notes a pod's node and workload before its Recorder is made, so
// that its first events are printed with them.
func (f *follower) place(ctx context.Context, node string, pod *corev1.Pod) {
	if _, known := f.nodeOf[pod.UID]; known {
		return
	}
	f.nodeOf[pod.UID] = node
	w := f.owners.of(ctx, pod)
	defer func() { f.rolloutOf[pod.UID] = f.byWorkload[w] }()
	r := f.byWorkload[w]
	if r == nil {
		r = &rollout.Rollout{Workload: w, Selector: "spec.nodeName", Services: []string{}}
		f.byWorkload[w] = r
		f.w.Workloads = append(f.w.Workloads, r)
		f.workloadLabels[r] = labels.Set(pod.Labels)
		for _, tr := range f.budgetTracks {
			f.matchBudget(r, tr)
		}
	}
	var added []string
	for _, svc := range f.servicesOf(pod) {
		if !slices.Contains(r.Services, svc) {
			r.Services = append(r.Services, svc)
			r.Capacity = append(r.Capacity, f.trackService(pod.Namespace, svc).track)
			added = append(added, svc)
		}
	}
	f.routed(r, added)
}

// routed names the Ingresses that route to services, new Services of r's
// workload, as watch pod does: a note the verdict keeps where the
// controller's timing is only estimated (no --ingress-api).
func (f *follower) routed(r *rollout.Rollout, services []string) {
	if f.ingresses == nil || len(services) == 0 {
		return
	}
	msg, estimated := f.ingresses.Discover(r.Workload.Namespace, services, f.cfg.IngressAPI)
	if msg == "" {
		return
	}
	msg = r.Workload.Namespace + "/" + r.Workload.Kind + "/" + r.Workload.Name + ": " + msg
	if estimated {
		f.note(msg)
		return
	}
	callback.Call(f.cfg.Printer.Note, f.w, msg)
}

func (f *follower) watched(ctx context.Context, recv time.Time, ev *watch.Event) {
	switch o := ev.Object.(type) {
	case *corev1.Pod:
		if excepted(o) {
			return
		}
		f.place(ctx, o.Spec.NodeName, o)
		if rec, added := f.set.PodEvent(recv, ev.Type, o); added {
			f.register(rec)
		}
	case *discoveryv1.EndpointSlice:
		f.set.SliceEvent(recv, ev.Type, o)
		if c := f.capacity[o.Namespace+"/"+o.Labels[discoveryv1.LabelServiceName]]; c != nil {
			f.samples(c.tracker.Slice(recv, ev.Type, o), c)
		}
	case *corev1.Event:
		if o.InvolvedObject.Kind == "Node" {
			f.nodeEvent(recv, ev.Type, o, false)
			return
		}
		f.set.KubeEvent(recv, ev.Type, o)
	case *policyv1.PodDisruptionBudget:
		f.budgetEvent(recv, ev.Type, o)
	case *corev1.Node:
		if ev.Type != watch.Deleted {
			f.nodeSeen(ctx, o)
			f.readySeen(recv, o)
			f.conditionsSeen(recv, o)
		} else if slices.Contains(f.w.Nodes, o.Name) && !f.deleted[o.Name] {
			f.nodeDeleted(o.Name)
		}
	}
}

func (f *follower) nodesListed(ctx context.Context, recv time.Time, list []runtime.Object) {
	present := map[string]bool{}
	for _, o := range list {
		if n, ok := o.(*corev1.Node); ok {
			present[n.Name] = true
			f.nodeSeen(ctx, n)
			f.readySeen(recv, n)
			f.conditionsSeen(recv, n)
		}
	}
	for _, n := range f.w.Nodes {
		if !present[n] && !f.deleted[n] {
			f.nodeDeleted(n)
		}
	}
}

func (f *follower) nodeDeleted(node string) {
	f.deleted[node] = true
	f.w.NodesDeleted = append(f.w.NodesDeleted, node)
	f.note(fmt.Sprintf("node %s was deleted: its pods are no longer waited for", node))
}

// emitted starts the watch's clock at the first deletion seen and prints
// the event with its pod's node and workload.
func (f *follower) emitted(rec *timeline.Recorder, e timeline.Event) {
	tl := rec.TL
	node, r := f.nodeOf[types.UID(tl.UID)], f.rolloutOf[types.UID(tl.UID)]
	if e.Kind == timeline.KindDeletionSeen && f.w.T0.IsZero() {
		f.w.T0 = e.Recv
		if e.Initial {
			f.w.T0 = f.w.Start
		}
	}
	// The state at start (endpoints, readiness, conditions) is recorded,
	// not printed: one line a pod of a pool says nothing about a drain. A
	// pod already terminating at start is.
	if e.Initial && e.Kind != timeline.KindDeletionSeen {
		return
	}
	if f.cfg.Printer.PodEvent != nil {
		f.cfg.Printer.PodEvent(f.w, node, r, tl, e)
	}
}

// servicesOf returns the Services of the pod's namespace whose selector
// matches its labels, as the EndpointSlice controller picks them.
func (f *follower) servicesOf(pod *corev1.Pod) []string {
	var out []string
	for i := range f.services {
		if selecting.Selects(&f.services[i], pod) {
			out = append(out, f.services[i].Name)
		}
	}
	return out
}
