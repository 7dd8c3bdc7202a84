package timeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-graceful/kubectl-graceful/internal/callback"
	"github.com/kubectl-graceful/kubectl-graceful/internal/follow"
	"github.com/kubectl-graceful/kubectl-graceful/internal/ingress"
	"github.com/kubectl-graceful/kubectl-graceful/internal/selecting"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/eviction"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/probe"
)

// Action is what Follow does to start the termination.
type Action int

const (
	// WaitForDelete only watches until someone else deletes the pod.
	WaitForDelete Action = iota
	// Delete sends a DELETE for the pod (with its UID as precondition).
	Delete
	// Evict posts a policy/v1 Eviction, retrying while a
	// PodDisruptionBudget refuses it (429).
	Evict
)

// Printer receives what Follow sees, as it sees it. Every func is
// optional: a nil one, or the zero Printer, is told nothing.
type Printer struct {
	Event func(tl *Timeline, e Event)
	// Gap is a watch gap's opening or closing, or a stall.
	Gap  func(tl *Timeline, g Gap)
	Note func(tl *Timeline, msg string)
	// Requests is a bucket of the probe's requests worth a line (the
	// "requests" track): those with failures, and those whose failure mix
	// changed.
	Requests func(tl *Timeline, l RequestLine)
}

// Config is what Follow needs.
type Config struct {
	Client    kubernetes.Interface
	Namespace string
	Name      string
	Action    Action
	// GracePeriodSeconds overrides the pod's grace period for Delete and
	// Evict; nil keeps the pod's terminationGracePeriodSeconds.
	GracePeriodSeconds *int64
	// Settle is how long to keep listening after the object is gone, for
	// late Events and EndpointSlice updates.
	Settle time.Duration
	// EvictRetry is the wait between refused evictions (default 2 s, or
	// the server's Retry-After when longer).
	EvictRetry time.Duration
	Printer    Printer
	// ProbeURL and Requests are the probe's URL and its buckets of
	// results (the "requests" track); nil Requests means no probe.
	ProbeURL string
	Requests <-chan probe.Bucket
	// IngressAPI is the URL of the Traefik API to read the pod's server
	// from (the "ingress" track); "" reads none.
	IngressAPI string
}

// ErrInterrupted is returned (wrapped) with the partial timeline when ctx
// is cancelled (Ctrl-C) before the pod is gone.
var ErrInterrupted = errors.New("interrupted")

// Follow watches the pod named in cfg until it is gone plus cfg.Settle,
// starting its termination first when cfg.Action says so. It returns the
// timeline, and an error when the pod does not exist, the cluster cannot be
// reached, the delete or eviction fails, or ctx ends first (wrapping the
// *eviction.TimeoutError of a context from eviction.WithTimeout, with the
// partial timeline).
func Follow(ctx context.Context, cfg Config) (*Timeline, error) {
	pods := cfg.Client.CoreV1().Pods(cfg.Namespace)
	pod, err := pods.Get(ctx, cfg.Name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("reading pod %s/%s: %w", cfg.Namespace, cfg.Name, err)
	}
	services, svcErr := selecting.Services(ctx, cfg.Client, pod)
	f := newFollower(cfg, NewRecorder(pod, services, time.Now()))
	f.rec.TL.ProbeURL = cfg.ProbeURL
	for _, e := range f.rec.TL.Events { // a deletion found at start
		f.rec.Emit(e)
	}
	switch {
	case svcErr != nil:
	case len(services) == 0:
		f.say(fmt.Sprintf("following pod %s/%s: no Service selects it", pod.Namespace, pod.Name))
	default:
		f.say(fmt.Sprintf("following pod %s/%s: Services selecting it: %s", pod.Namespace, pod.Name, joinNames(services)))
	}
	if svcErr != nil && ctx.Err() == nil { // cut by Ctrl-C or --timeout: no fact about the cluster
		f.note(fmt.Sprintf("cannot list Services (%v): watching every EndpointSlice of the namespace for the pod's endpoint", svcErr))
	}
	f.routes(ctx, services)
	end, err := follow.Run(ctx, follow.Follower{Streams: f.streams(pod, services, svcErr != nil),
		Handle: f.handle, Listed: f.listed, Progress: f.progress,
		Retry: f.evict, Requests: cfg.Requests, OnRequests: f.requests})
	if (end == follow.TimedOut || end == follow.Interrupted) && err == nil {
		err = f.cut(ctx)
	}
	f.flushLines()
	f.rec.TL.End = time.Now()
	return f.rec.TL, err
}

type follower struct {
	cfg    Config
	rec    *Recorder
	acted  bool
	reqLog RequestLog
	// held are the lines waiting for the probe's buckets (line).
	held []heldLine
}

// newFollower is a follower of rec's pod printing through cfg.Printer,
// each line in time order with the probe's (line).
func newFollower(cfg Config, rec *Recorder) *follower {
	f := &follower{cfg: cfg, rec: rec}
	rec.Emit = func(e Event) { f.line(e.Recv, func() { callback.Call(cfg.Printer.Event, rec.TL, e) }) }
	rec.Stall, rec.Gap = f.gapLine, f.gapLine
	return f
}

// gapLine prints a gap's opening (at its start) or closing, or a stall
// (at its end), as the gap lines show them.
func (f *follower) gapLine(g Gap) {
	at := g.From
	if !g.To.IsZero() {
		at = g.To
	}
	f.line(at, func() { callback.Call(f.cfg.Printer.Gap, f.rec.TL, g) })
}

// note prints msg and keeps it for the verdict: what the reader must know
// to trust it (a degraded watch, a skipped delete).
func (f *follower) note(msg string) {
	f.rec.note(msg)
	f.say(msg)
}

// say prints msg as it happens only (what is being followed, waiting).
func (f *follower) say(msg string) {
	f.line(time.Now(), func() { callback.Call(f.cfg.Printer.Note, f.rec.TL, msg) })
}

// streams builds the three watches, each filtered server-side: the pod by
// metadata.name, the EndpointSlices by kubernetes.io/service-name, the
// Events by involvedObject.uid.
func (f *follower) streams(pod *corev1.Pod, services []string, allSlices bool) []*listwatch.Stream {
	c, ns := f.cfg.Client, pod.Namespace
	out := []*listwatch.Stream{
		follow.Stream(StreamPods, c.CoreV1().RESTClient(), "pods", ns, "", fields.OneTermEqualSelector("metadata.name", pod.Name).String()),
		follow.Events(StreamEvents, c, ns, fields.OneTermEqualSelector("involvedObject.uid", string(pod.UID)).String()),
	}
	if f.cfg.IngressAPI != "" {
		f.rec.TL.IngressAPI = f.cfg.IngressAPI
		out = append(out, ingress.Stream(f.cfg.IngressAPI))
	}
	if s := follow.Slices(StreamEndpointSlices, c, ns, services, allSlices); s != nil {
		out = append(out, s)
	}
	return out
}

// progress is Finished once the pod is gone, for cfg.Settle.
func (f *follower) progress() (follow.Progress, time.Duration, error) {
	if f.rec.gone {
		return follow.Finished, f.cfg.Settle, nil
	}
	return follow.Following, 0, nil
}

// cut is the error of a watch whose ctx ended before the pod was gone:
// the partial timeline's, wrapping the *eviction.TimeoutError of
// --timeout or ErrInterrupted.
func (f *follower) cut(ctx context.Context) error {
	if f.rec.gone {
		return nil
	}
	cause := ErrInterrupted
	if t := (*eviction.TimeoutError)(nil); errors.As(context.Cause(ctx), &t) {
		cause = t
	}
	return fmt.Errorf("%w before pod %s/%s was gone: the timeline above is partial", cause, f.cfg.Namespace, f.cfg.Name)
}

// listed starts the termination once every stream has its first List;
// for an eviction it returns the wait before the next attempt when a
// PodDisruptionBudget refused it.
func (f *follower) listed(ctx context.Context) (time.Duration, error) {
	f.acted = true
	tl := f.rec.TL
	switch f.cfg.Action {
	case Delete:
		if tl.AlreadyTerminating && f.cfg.GracePeriodSeconds == nil {
			f.note("the pod is already terminating: not deleting it again, following it")
			return 0, nil
		}
		return 0, f.delete(ctx)
	case Evict:
		if tl.AlreadyTerminating {
			f.note("the pod is already terminating: not evicting it, following it")
			return 0, nil
		}
		return f.evict(ctx)
	case WaitForDelete:
	}
	if !tl.AlreadyTerminating {
		f.say(fmt.Sprintf("waiting for pod %s/%s to be deleted (use --delete or --evict to start it now)", tl.Namespace, tl.Pod))
	}
	return 0, nil
}

func graceText(g *int64) string {
	if g == nil {
		return "the pod's own grace period"
	}
	return fmt.Sprintf("grace period %d s", *g)
}

func (f *follower) delete(ctx context.Context) error {
	uid := f.rec.Pod().UID
	at := time.Now()
	err := eviction.Send(ctx, f.cfg.Client, f.cfg.Namespace, f.cfg.Name, metav1.DeleteOptions{
		GracePeriodSeconds: f.cfg.GracePeriodSeconds,
		Preconditions:      &metav1.Preconditions{UID: &uid},
	}, true)
	if err != nil {
		return fmt.Errorf("deleting pod %s/%s: %w", f.cfg.Namespace, f.cfg.Name, err)
	}
	f.rec.MarkT0(at, T0DeleteSent, "DELETE sent by this command ("+graceText(f.cfg.GracePeriodSeconds)+")")
	return nil
}

// evict posts one Eviction. A refusal that may pass later (a
// PodDisruptionBudget's 429, throttling, a terminating namespace; read by
// pkg/eviction) is recorded with its cause and the next attempt is
// scheduled; any other error ends the command.
func (f *follower) evict(ctx context.Context) (time.Duration, error) {
	if f.rec.gone { // deleted by another client while the budget refused
		return 0, nil
	}
	at := time.Now()
	err := eviction.Send(ctx, f.cfg.Client, f.cfg.Namespace, f.cfg.Name,
		metav1.DeleteOptions{GracePeriodSeconds: f.cfg.GracePeriodSeconds}, false)
	a := eviction.Read(err)
	if a.Kind == eviction.Accepted {
		f.rec.MarkT0(at, T0EvictionAccepted, "Eviction accepted (policy/v1, "+graceText(f.cfg.GracePeriodSeconds)+")")
		return 0, nil
	}
	if !a.Retryable() {
		return 0, fmt.Errorf("evicting pod %s/%s: %w", f.cfg.Namespace, f.cfg.Name, err)
	}
	code := "429" // the refusal's HTTP status, for the event line
	if a.Kind == eviction.NamespaceTerminating {
		code = "403"
	}
	f.rec.add(Event{Recv: time.Now(), Track: ControlPlane, Kind: KindEvictionRefused,
		Message: "Eviction refused (" + code + "): " + a.Cause + "; retrying"})
	return max(cmp.Or(f.cfg.EvictRetry, 2*time.Second), a.RetryAfter), nil
}
