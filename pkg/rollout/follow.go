package rollout

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-graceful/kubectl-graceful/internal/callback"
	"github.com/kubectl-graceful/kubectl-graceful/internal/follow"
	"github.com/kubectl-graceful/kubectl-graceful/internal/ingress"
	"github.com/kubectl-graceful/kubectl-graceful/internal/selecting"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timeline/podset"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/probe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// Printer receives what Follow sees, as it sees it. Every func is
// optional: a nil one, or the zero Printer, is told nothing.
type Printer struct {
	// PodEvent is a change of one pod, recorded on its own Timeline.
	PodEvent func(r *Rollout, tl *timeline.Timeline, e timeline.Event)
	// Capacity is a new endpoint count of one Service.
	Capacity func(r *Rollout, service string, s CapacitySample)
	// Status is a rollout-level change.
	Status func(r *Rollout, s StatusChange)
	// Gap is a watch's gap opening or closing, or one pod's watch stalled
	// (g.Stalled, timeline.Recorder.Stall).
	Gap  func(r *Rollout, g timeline.Gap)
	Note func(r *Rollout, msg string)
	// Requests is a bucket of the probe's requests worth a line (the
	// "requests" track).
	Requests func(r *Rollout, l timeline.RequestLine)
}

// Config is what Follow needs.
type Config struct {
	Client   kubernetes.Interface
	Workload Workload
	Action   Action
	// Replicas is the target of Scale.
	Replicas int32
	// Settle is how long to keep listening once the rollout is complete
	// and no pod is terminating, for late Events and EndpointSlice updates.
	Settle  time.Duration
	Printer Printer
	// ProbeURL and Requests are the probe's URL and its buckets of
	// results (the "requests" track); nil Requests means no probe.
	ProbeURL string
	Requests <-chan probe.Bucket
	// IngressAPI is the URL of the Traefik API to read the pods' servers
	// from (each pod's "ingress" track); "" reads none.
	IngressAPI string
}

// Follow follows every pod of a workload that terminates, the
// endpoint capacity of the Services that select it and the workload's
// rollout status, until the rollout is complete and no pod of it is
// terminating (plus cfg.Settle), the workload reports it stopped
// progressing, or ctx ends (Rollout.Ended says which). It opens four watches
// whatever the number of pods: the pods by the workload's label selector,
// the EndpointSlices by kubernetes.io/service-name, the namespace's pod
// Events (matched to pods by UID), and the workload itself.
//
// It returns an error, before changing anything, when the workload does not
// exist, is not a kind with a rollout, selects no pods, cannot be restarted
// or scaled as asked, or the user may not list and watch its pods; and an
// error when the restart or scale request fails or the pods cannot be
// watched.
func Follow(ctx context.Context, cfg Config) (*Rollout, error) {
	w := cfg.Workload
	if err := CheckKind(w.Kind); err != nil {
		return nil, err
	}
	if cfg.Action == Scale && w.Kind == kindDaemonSet {
		return nil, fmt.Errorf("%s has no scale subresource: --scale works on deployments and statefulsets", w)
	}
	obj, err := getWorkload(ctx, cfg.Client, w)
	if err != nil {
		return nil, err
	}
	st, err := stateOf(obj)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", w, err)
	}
	f := &workloadFollower{cfg: cfg, st: st, gen0: st.generation,
		everReady: map[types.UID]bool{}, listed: map[string]bool{}}
	if cfg.Action == Restart {
		if f.patch, err = restartPatch(obj); err != nil {
			return nil, fmt.Errorf("cannot restart %s: %w", w, err)
		}
	}
	if err := canWatchPods(ctx, cfg.Client, w.Namespace); err != nil {
		return nil, err
	}
	f.r = &Rollout{Workload: w, Selector: st.selector.String(), Start: time.Now(), ProbeURL: cfg.ProbeURL}
	f.set = podset.Set{Start: f.r.Start, Services: func(*corev1.Pod) []string { return f.r.Services }, Emit: f.emitted,
		Stall: func(g timeline.Gap) { callback.Call(f.cfg.Printer.Gap, f.r, g) }, IngressAPI: cfg.IngressAPI}
	f.prepare(ctx)
	end, err := follow.Run(ctx, follow.Follower{Streams: f.streams(), Handle: f.handle, Listed: f.listedAll,
		Progress: f.progress, Requests: cfg.Requests, OnRequests: f.requests})
	f.r.Ended = map[follow.End]timeline.Ended{follow.Settled: timeline.EndedComplete, follow.Halted: timeline.EndedStalled,
		follow.TimedOut: timeline.EndedTimeout, follow.Interrupted: timeline.EndedInterrupted}[end]
	f.finish()
	return f.r, err
}

// workloadFollower is Follow's state: one Recorder a pod, one
// capacity tracker, the last workload state.
type workloadFollower struct {
	cfg   Config
	r     *Rollout
	st    workloadState
	patch []byte
	// gen0 is the generation at start; minGen the one the status must
	// reach after this command's restart or scale.
	gen0, minGen               int64
	set                        podset.Set
	everReady                  map[types.UID]bool
	capacity                   *serviceTracks
	listed                     map[string]bool
	acted, started, statusDone bool
	noRolloutStatus            bool
	reqLog                     timeline.RequestLog
}

// prepare reads the Services and PodDisruptionBudgets that select the pod
// template; a forbidden read degrades the output with a note.
func (f *workloadFollower) prepare(ctx context.Context) {
	r, w := f.r, f.cfg.Workload
	tmpl := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: w.Namespace, Labels: f.st.template}}
	services, err := selecting.Services(ctx, f.cfg.Client, tmpl)
	// A read cut by ctx's end (Ctrl-C, --timeout) is no fact about the
	// cluster: the loop ends at once, and a note would blame the reads.
	if err != nil && ctx.Err() == nil {
		r.ServicesUnseen = true
		f.note(fmt.Sprintf("cannot list Services (%v): no capacity track; watching every EndpointSlice of the namespace for the pods' endpoints", err))
	}
	r.Services = services
	f.capacity = newServiceTracks(services, f.st.desired)
	budgets, err := budgetsFor(ctx, f.cfg.Client, w.Namespace, f.st.template)
	if err != nil && ctx.Err() == nil {
		f.note(fmt.Sprintf("cannot list PodDisruptionBudgets (%v): capacity is not compared with a budget", err))
	}
	r.Budgets = budgets
	// The Ingresses routing to the Services, as watch pod names them.
	if msg, estimated := ingress.Discover(ctx, f.cfg.Client, w.Namespace, services, f.cfg.IngressAPI); estimated {
		f.note(msg)
	} else if msg != "" {
		f.say(msg)
	}
}

func (f *workloadFollower) note(msg string) {
	f.r.Notes = append(f.r.Notes, msg)
	callback.Call(f.cfg.Printer.Note, f.r, msg)
}

func (f *workloadFollower) say(msg string) { callback.Call(f.cfg.Printer.Note, f.r, msg) }

func (f *workloadFollower) status(recv time.Time, pod, msg string) {
	s := StatusChange{Recv: recv, Pod: pod, Message: msg}
	f.r.Status = append(f.r.Status, s)
	callback.Call(f.cfg.Printer.Status, f.r, s)
}

// workloadResource is the API resource of each kind, for its watch.
var workloadResource = map[string]string{kindDeployment: "deployments", kindStatefulSet: "statefulsets", kindDaemonSet: "daemonsets"}

// streams builds the four watches, each filtered server-side.
func (f *workloadFollower) streams() []*listwatch.Stream {
	c, w := f.cfg.Client, f.cfg.Workload
	ns := w.Namespace
	out := []*listwatch.Stream{
		follow.Stream("pod", c.CoreV1().RESTClient(), "pods", ns, f.st.selector.String(), ""),
		follow.Events("Events", c, ns, fields.OneTermEqualSelector("involvedObject.kind", "Pod").String()),
		follow.Stream("workload", c.AppsV1().RESTClient(), workloadResource[w.Kind], ns, "", fields.OneTermEqualSelector("metadata.name", w.Name).String()),
	}
	if f.cfg.IngressAPI != "" {
		out = append(out, ingress.Stream(f.cfg.IngressAPI))
	}
	if s := follow.Slices("EndpointSlices", c, ns, f.r.Services, f.r.ServicesUnseen); s != nil {
		out = append(out, s)
	}
	return out
}

// listedAll sends the restart or the scale, once every watch is listening.
func (f *workloadFollower) listedAll(ctx context.Context) (time.Duration, error) {
	f.acted = true
	return 0, f.act(ctx)
}

// progress is Stopped when the workload stalled, Finished once the
// rollout is complete (for cfg.Settle), its completion dated the first
// time it is.
func (f *workloadFollower) progress() (follow.Progress, time.Duration, error) {
	switch {
	case f.r.Stalled != "":
		return follow.Stopped, 0, nil
	case !f.finished():
		f.r.CompleteAt = time.Time{}
		return follow.Following, 0, nil
	case f.r.CompleteAt.IsZero():
		f.r.CompleteAt = time.Now()
	}
	return follow.Finished, f.cfg.Settle, nil
}

// finished reports whether the rollout has started and is complete by the
// workload's own status, with no pod of it still terminating.
func (f *workloadFollower) finished() bool {
	if !f.acted || !f.started || !f.statusDone {
		return false
	}
	for _, rec := range f.set.Recorders() {
		if !rec.TL.T0.IsZero() && !rec.TL.HasKind(timeline.KindPodGone) {
			return false
		}
	}
	return true
}

// act sends the restart or the scale, once every watch is listening.
func (f *workloadFollower) act(ctx context.Context) error {
	w, r := f.cfg.Workload, f.r
	if len(f.set.Recorders()) == 0 {
		return fmt.Errorf("%s selects no pods (selector %s): there is nothing to follow", w, r.Selector)
	}
	switch f.cfg.Action {
	case Restart:
		at := time.Now()
		gen, err := restart(ctx, f.cfg.Client, w, f.patch)
		if err != nil {
			return err
		}
		f.startAt(at, timeline.T0RestartSent)
		f.minGen, f.statusDone = gen, false
		f.status(at, "", "restart sent: pod template annotation kubectl.kubernetes.io/restartedAt set (as kubectl rollout restart)")
	case Scale:
		if f.cfg.Replicas == f.st.desired {
			f.note(fmt.Sprintf("%s already has %d replicas: nothing to scale", w, f.cfg.Replicas))
			f.started = true
			return nil
		}
		at := time.Now()
		if err := scaleTo(ctx, f.cfg.Client, w, f.cfg.Replicas); err != nil {
			return err
		}
		f.startAt(at, timeline.T0ScaleSent)
		f.minGen, f.statusDone = f.gen0+1, false
		f.status(at, "", fmt.Sprintf("scale sent: replicas %d -> %d (scale subresource)", f.st.desired, f.cfg.Replicas))
	default:
		if !f.started {
			f.say(fmt.Sprintf("waiting for a rollout, scale-down or drain of %s (use --restart or --scale N to start one now)", w))
		}
	}
	return nil
}

// startAt marks the rollout as started, its T0 at when first known.
func (f *workloadFollower) startAt(at time.Time, source timeline.T0Source) {
	f.started = true
	if f.r.T0.IsZero() {
		f.r.T0, f.r.T0Source = at, source
	}
}

// finish fills what the rollout's record needs at the end.
func (f *workloadFollower) finish() {
	r := f.r
	r.End = time.Now()
	r.Complete = r.Ended == timeline.EndedComplete
	if !r.Complete {
		r.CompleteAt = time.Time{}
	}
	r.Pods = r.Pods[:0]
	r.Gaps = f.set.Gaps
	for _, rec := range f.set.Recorders() {
		r.Pods = append(r.Pods, rec.TL)
		p := rec.Pod()
		if !rec.TL.HasKind(timeline.KindPodGone) && p.DeletionTimestamp == nil && !f.everReady[p.UID] {
			r.NeverReady = append(r.NeverReady, p.Name)
		}
	}
	r.Capacity = f.capacity.ordered(r.Services)
}
