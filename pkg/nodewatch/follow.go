package nodewatch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/watchlist"

	"github.com/kubectl-graceful/kubectl-graceful/internal/callback"
	"github.com/kubectl-graceful/kubectl-graceful/internal/follow"
	"github.com/kubectl-graceful/kubectl-graceful/internal/ingress"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timeline/podset"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// Printer receives what Follow sees, as it sees it. Every callback is
// optional: a nil func is skipped.
type Printer struct {
	// PodEvent is a change of one pod, recorded on its own Timeline; node
	// and workload say where it runs and what owns it.
	PodEvent func(w *Watch, node string, r *rollout.Rollout, tl *timeline.Timeline, e timeline.Event)
	// Capacity is a new endpoint count of a Service (namespace/name).
	Capacity func(w *Watch, service string, s rollout.CapacitySample)
	// Gap is a watch's gap opening or closing, or one pod's watch stalled
	// (g.Stalled, timeline.Recorder.Stall).
	Gap  func(w *Watch, g timeline.Gap)
	Note func(w *Watch, msg string)
	// NodeEvent is an Event about a followed node or a change of one of
	// its conditions, as it comes.
	NodeEvent func(w *Watch, e NodeEvent)
}

// Config is what Follow needs.
type Config struct {
	Client kubernetes.Interface
	// Nodes are the nodes to follow by name; Selector, when Nodes is
	// empty, a label selector that picks them (a node pool).
	Nodes    []string
	Selector string
	// PodSelector, when set, is the drain's own pod selector (drain node
	// --pod-selector): a pod it does not match is never taken by that
	// drain, so it is neither waited for nor left at the end.
	PodSelector labels.Selector
	// Settle is how long to keep listening once no evictable pod is left
	// on the nodes, for late Events and EndpointSlice updates.
	Settle  time.Duration
	Printer Printer
	// Ready, when set, is called once every watch has its first List: from
	// then on every termination is seen from its start.
	Ready func()
	// Watches, when set, is given every Notice of Follow's watches as
	// Follow takes it (Publish): another reader of the objects of a stream
	// it shares (the pods on each node, listwatch.PodsOnNode, and the
	// PodDisruptionBudgets, listwatch.Budgets) subscribes there and
	// needs no watch of its own. The caller closes it once Follow returned.
	Watches *listwatch.Hub
	// CordonedHere, when set, is asked about a followed node the watch saw
	// schedulable and then cordoned with none of the drainers' marks: ok
	// when the caller's own drain (`drain node --watch`) cordoned it, with
	// what bounds that drain; the note then says "cordoned by this drain".
	// It may wait, briefly, for the answer to the caller's cordon.
	CordonedHere func(node string) (deadline string, ok bool)
	// IngressAPI is the URL of the Traefik API to read the pods' servers
	// from (each pod's "ingress" track); "" reads none.
	IngressAPI string
}

// ErrNoNodes is returned (wrapped) when the selector matches no node.
var ErrNoNodes = errors.New("no node matches")

// ErrStopped, as the cause of Follow's context (context.WithCancelCause),
// says the drain the watch followed stopped: Watch.Ended is timeline.EndedStopped.
var ErrStopped = errors.New("the drain stopped")

// Follow follows the pods on the nodes until none is left that a drain
// evicts (DaemonSet and mirror pods stay), every node is deleted, or ctx
// ends (Watch.Ended says which). It returns an error, before watching,
// when a node does not exist, the selector matches none or
// the pods cannot be listed; a forbidden Services, PodDisruptionBudgets,
// EndpointSlices or Events read degrades the output with a note.
func Follow(ctx context.Context, cfg Config) (*Watch, error) {
	nodes, err := resolveNodes(ctx, cfg)
	if err != nil {
		return nil, err
	}
	f := newFollower(cfg, nodes)
	w := f.w
	f.prepare(ctx)
	end, err := follow.Run(ctx, follow.Follower{Streams: f.streams(), Handle: f.handle, Listed: f.listedAll,
		Progress: f.progress, Publish: f.cfg.Watches.Publish})
	f.ended(ctx, end)
	f.finish()
	return w, err
}

// resolveNodes checks that every named node exists, or lists the nodes
// the selector picks.
func resolveNodes(ctx context.Context, cfg Config) ([]string, error) {
	if len(cfg.Nodes) > 0 {
		var out []string
		for _, n := range cfg.Nodes {
			if slices.Contains(out, n) {
				continue // one watch a node: a name given twice is one node
			}
			if _, err := cfg.Client.CoreV1().Nodes().Get(ctx, n, metav1.GetOptions{}); err != nil {
				return nil, err
			}
			out = append(out, n)
		}
		return out, nil
	}
	list, err := cfg.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: cfg.Selector})
	if err != nil {
		return nil, err
	}
	if len(list.Items) == 0 {
		return nil, fmt.Errorf("%w selector %q", ErrNoNodes, cfg.Selector)
	}
	out := make([]string, 0, len(list.Items))
	for _, n := range list.Items {
		out = append(out, n.Name)
	}
	return out, nil
}

// newFollower returns Follow's state for the nodes, every map made.
func newFollower(cfg Config, nodes []string) *follower {
	w := &Watch{Nodes: nodes, Start: time.Now(), pods: map[*timeline.Timeline]podPlace{}, budgets: map[*rollout.Rollout][]*budgetTrack{}}
	f := &follower{cfg: cfg, w: w, owners: newOwners(cfg.Client),
		byWorkload: map[rollout.Workload]*rollout.Rollout{}, capacity: map[string]*serviceCapacity{},
		nodeOf:    map[types.UID]string{},
		rolloutOf: map[types.UID]*rollout.Rollout{}, deleted: map[string]bool{}, nodeGapOpen: map[string]int{},
		listed: map[string]bool{}, drainers: map[string]drainerSeen{},
		budgetTracks: map[types.UID]*budgetTrack{}, workloadLabels: map[*rollout.Rollout]labels.Set{},
		nodeEventsSeen: map[types.UID]string{}, conditions: map[string]map[corev1.NodeConditionType]conditionSeen{}}
	f.set = podset.Set{Start: w.Start, Services: f.servicesOf, Emit: f.emitted, IngressAPI: cfg.IngressAPI,
		Stall: func(g timeline.Gap) { callback.Call(f.cfg.Printer.Gap, f.w, g) }}
	return f
}

// follower is Follow's state.
type follower struct {
	cfg      Config
	w        *Watch
	set      podset.Set
	owners   owners
	services []corev1.Service
	// ingresses are the Ingresses read once with the Services (nil when
	// they cannot be listed), to name those routing to each workload.
	ingresses *ingress.Index
	// budgetTracks are the budgets seen, by UID; workloadLabels the
	// labels of each workload's first pod, which the budgets select.
	budgetTracks   map[types.UID]*budgetTrack
	workloadLabels map[*rollout.Rollout]labels.Set
	budgetGaps     []timeline.Gap
	byWorkload     map[rollout.Workload]*rollout.Rollout
	capacity       map[string]*serviceCapacity
	nodeOf         map[types.UID]string
	rolloutOf      map[types.UID]*rollout.Rollout
	deleted        map[string]bool
	// nodeGaps are the gaps of the nodes' pods' watches; nodeGapOpen the
	// index of each node's last one.
	nodeGaps    []timeline.Gap
	nodeGapOpen map[string]int
	listed      map[string]bool
	// drainers is what nodeSeen last saw of each node.
	drainers map[string]drainerSeen
	kured    kuredLocator
	// nodeEventsSeen is what nodeEvent last saw of each Event about the
	// nodes; conditions what conditionsSeen last saw of each node's.
	nodeEventsSeen map[types.UID]string
	conditions     map[string]map[corev1.NodeConditionType]conditionSeen
	// leftFrom is where finished resumes its scan of the recorders: every
	// one before it is gone or on a deleted node.
	leftFrom int
}

// prepare lists the Services once: the pods' Services are matched from
// them as the pods are seen. The budgets are watched (budgetStream).
func (f *follower) prepare(ctx context.Context) {
	svcs, err := f.cfg.Client.CoreV1().Services("").List(ctx, metav1.ListOptions{})
	if err != nil {
		f.w.ServicesUnseen = true
		f.note(fmt.Sprintf("cannot list Services (%v): no capacity track; the pods' Services are found from their EndpointSlices", err))
	} else {
		f.services = svcs.Items
	}
	f.ingresses, _ = ingress.Read(ctx, f.cfg.Client, "") // unread, the line is left out (docs/rbac.md)
}

func (f *follower) note(msg string) {
	f.w.Notes = append(f.w.Notes, msg)
	callback.Call(f.cfg.Printer.Note, f.w, msg)
}

// podStream is the name of the pods' stream of a node.
func podStream(node string) string { return timeline.StreamPods + " on " + node }

// streams builds one pods' watch a node (field spec.nodeName), and one
// watch each of the nodes, the EndpointSlices, the pod Events, the nodes'
// Events and the PodDisruptionBudgets. The nodes keep their managedFields:
// they say who set a condition.
func (f *follower) streams() []*listwatch.Stream {
	c := f.cfg.Client
	var out []*listwatch.Stream
	for _, n := range f.w.Nodes {
		key := listwatch.PodsOnNode(n)
		s := follow.Stream(podStream(n), c.CoreV1().RESTClient(), "pods", "", "", key.FieldSelector)
		s.Key = key
		out = append(out, s)
	}
	nodes := follow.Stream("nodes", c.CoreV1().RESTClient(), "nodes", "", f.cfg.Selector, "")
	nodes.KeepManagedFields = true
	budgets := follow.Stream(streamBudgets, c.PolicyV1().RESTClient(), "poddisruptionbudgets", "", "", "")
	budgets.Key = listwatch.Budgets // the one watch of the cluster's budgets
	out = append(out,
		nodes,
		follow.Stream(timeline.StreamEndpointSlices, c.DiscoveryV1().RESTClient(), "endpointslices", "", "", ""),
		follow.Events(timeline.StreamEvents, c, "", fields.OneTermEqualSelector("involvedObject.kind", "Pod").String()),
		budgets,
		f.nodeEventStream(),
	)
	// One request each, where a List then a watch are two.
	wl := !watchlist.DoesClientNotSupportWatchListSemantics(c)
	for _, s := range out {
		s.WatchList = wl
	}
	if f.cfg.IngressAPI != "" {
		out = append(out, ingress.Stream(f.cfg.IngressAPI))
	}
	return out
}

// listedAll tells cfg.Ready that every watch has its first List.
func (f *follower) listedAll(context.Context) (time.Duration, error) {
	if f.cfg.Ready != nil {
		f.cfg.Ready()
	}
	return 0, nil
}

// progress is Finished once no evictable pod is left on the nodes, then
// listening Config.Settle after a deletion, none when no pod was deleted
// (nothing can arrive late about a termination that did not happen).
func (f *follower) progress() (follow.Progress, time.Duration, error) {
	switch {
	case !f.finished():
		return follow.Following, 0, nil
	case f.w.T0.IsZero():
		return follow.Finished, 0, nil
	}
	return follow.Finished, f.cfg.Settle, nil
}

// ended records why the watch stopped.
func (f *follower) ended(ctx context.Context, end follow.End) {
	switch {
	case end == 0: // Follow failed: its error says why, no end was reached
	case end == follow.Settled && len(f.deleted) == len(f.w.Nodes):
		f.w.Ended = timeline.EndedNodesDeleted
	case end == follow.Settled:
		f.w.Ended = timeline.EndedEmpty
	case end == follow.TimedOut:
		f.w.Ended = timeline.EndedTimeout
	case errors.Is(context.Cause(ctx), ErrStopped):
		f.w.Ended = timeline.EndedStopped
	default:
		f.w.Ended = timeline.EndedInterrupted
	}
}

// finished reports whether no evictable pod is left on the nodes that
// exist. It runs after every notice, so it resumes its scan where the last
// one stopped: a pod once gone, or on a deleted node, stays so (Gone and
// deleted are only ever set), and new pods are added at the end. A full
// scan each time cost O(pods) per notice: at 2,000 pods it was the node
// watch's largest CPU cost in drain --watch (bench/RESULTS.md).
func (f *follower) finished() bool {
	recs := f.set.Recorders()
	for f.leftFrom < len(recs) && !f.isLeft(recs[f.leftFrom]) {
		f.leftFrom++
	}
	return f.leftFrom == len(recs)
}

// isLeft reports whether rec's pod is still on a node that exists, and
// one the drain followed takes (PodSelector).
func (f *follower) isLeft(rec *timeline.Recorder) bool {
	if s := f.cfg.PodSelector; s != nil && !s.Matches(labels.Set(rec.Pod().Labels)) {
		return false
	}
	return !rec.TL.HasKind(timeline.KindPodGone) && !f.deleted[f.nodeOf[types.UID(rec.TL.UID)]]
}

// left returns the evictable pods still on the nodes that exist, and of
// them those whose deletion was seen (still terminating).
func (f *follower) left() (remaining, terminating []string) {
	for _, rec := range f.set.Recorders() {
		if f.isLeft(rec) {
			name := rec.Pod().Namespace + "/" + rec.Pod().Name
			remaining = append(remaining, name)
			if !rec.TL.T0.IsZero() {
				terminating = append(terminating, name)
			}
		}
	}
	return remaining, terminating
}

// finish closes the records: the shared clock, the end, what is left.
func (f *follower) finish() {
	w := f.w
	w.End = time.Now()
	w.Remaining, w.Terminating = f.left()
	for _, node := range w.Nodes {
		if !f.listed[podStream(node)] {
			w.unlisted = append(w.unlisted, node)
		}
	}
	w.budgetGaps = f.budgetGaps
	w.Gaps = append(append(append([]timeline.Gap(nil), f.set.Gaps...), f.nodeGaps...), f.budgetGaps...)
	w.EndpointsUnseen, w.EventsUnseen = f.set.EndpointsUnseen, f.set.EventsUnseen
	for _, r := range w.Workloads {
		r.T0, r.T0Source, r.Start, r.End, r.Gaps = w.T0, timeline.T0NodesPodDeletionSeen, w.Start, w.End, w.Gaps
		r.EndpointsUnseen, r.ServicesUnseen = w.EndpointsUnseen, w.ServicesUnseen
		r.Ended, r.Complete = timeline.EndedComplete, true
		for _, tl := range r.Pods {
			if !tl.HasKind(timeline.KindPodGone) {
				r.Ended, r.Complete = w.Ended, false
			}
		}
		if r.Complete {
			r.CompleteAt = w.End
		}
	}
}
