package timeline

import (
	"slices"
	"strings"
	"time"

	"k8s.io/utils/ptr"
)

// Exit is one container's exit as seen on the timeline.
type Exit struct {
	Container string    `json:"container"`
	Ms        int64     `json:"ms"`
	Code      int32     `json:"exitCode"`
	Server    time.Time `json:"finishedAt,omitzero"`
	Meaning   string    `json:"meaning,omitempty"`
	// Reason is the kubelet's reason for the exit (Error, OOMKilled).
	Reason string `json:"reason,omitempty"`
}

// SigtermBasis is what an estimate of SIGTERM rests on. The values appear
// in -o json as "sigtermBasis".
type SigtermBasis string

// The bases of a SIGTERM estimate.
const (
	// SigtermFromKilling: the container's Killing Event plus its preStop
	// delay from the spec.
	SigtermFromKilling SigtermBasis = "killing-event"
	// SigtermFromRequest: no Killing Event was seen; the delete request
	// plus the preStop delay.
	SigtermFromRequest SigtermBasis = "delete-request"
	// SigtermFromFailedHook: the FailedPreStopHook Event.
	SigtermFromFailedHook SigtermBasis = "failed-pre-stop-hook"
	// SigtermFromExit: bounded by the container's reported exit.
	SigtermFromExit SigtermBasis = "container-exit"
	// SigtermFromDeadline: a hook of unknown length, bounded by the grace
	// deadline.
	SigtermFromDeadline SigtermBasis = "grace-deadline"
)

// basis is a SigtermBasis with its sentence.
type basis struct {
	from SigtermBasis
	text string
}

// Verdict is the answer to "did the pod stop receiving traffic before it
// stopped serving?", with the numbers behind it. Times are milliseconds
// since the delete request on the local monotonic clock (Timeline.T0).
// Every list is empty, never nil, so that -o json writes [] for it.
type Verdict struct {
	// Risk is true when a race window, a window shorter than the
	// propagation time, a container stopped before the app's preStop ended,
	// a SIGKILL or a FailedPreStopHook was seen: the command exits 2.
	Risk bool `json:"risk"`
	// BehindService is false when no Service selects the pod.
	BehindService bool `json:"behindService"`
	// EndpointOutMs is when the pod stopped receiving traffic for good, by
	// kube-proxy's rule: its endpoint had left the ready set of every
	// Service that still had another ready endpoint, and had stopped
	// serving (or was removed) in the others. nil when unseen.
	EndpointOutMs *int64 `json:"endpointOutMs,omitempty"`
	// ReadyOutMs is when the endpoint had left every ready set for good
	// (ready=false or removed); it equals EndpointOutMs unless a Service
	// had no other ready endpoint.
	ReadyOutMs *int64 `json:"readyOutMs,omitempty"`
	// NoReadyEndpoint lists the Services that had no ready endpoint left
	// while this pod's endpoint was serving and terminating: kube-proxy
	// kept sending their traffic to it.
	NoReadyEndpoint []string `json:"servicesWithoutReadyEndpoint"`
	// KillingMs is the first Killing event (kubelet starts preStop).
	KillingMs *int64 `json:"killingMs,omitempty"`
	// SigtermMs is the estimated SIGTERM (Killing + preStop from the spec,
	// Killing + the grace period when the preStop outlasts it, or Killing
	// alone when the hook failed) of StopContainer; nil when the hook's
	// duration is unknown.
	SigtermMs *int64 `json:"sigtermEstimatedMs,omitempty"`
	// SigtermBasis says what SigtermMs (or, for a hook of unknown
	// length, SigtermLatestMs) rests on; SigtermBasisText says it in a
	// sentence with the numbers, as the findings and the rollout's table
	// print it.
	SigtermBasis     SigtermBasis `json:"sigtermBasis,omitempty"`
	SigtermBasisText string       `json:"sigtermBasisText,omitempty"`
	// SigtermEarliestMs and SigtermLatestMs bound when SIGTERM really came
	// (ms since the request; set with SigtermMs): the API shows neither
	// SIGTERM nor exactly when its Events were written, so the estimate is
	// an interval (sigtermBounds). A window whose end falls inside it has
	// no sign the API can show.
	SigtermEarliestMs *int64 `json:"sigtermEarliestMs,omitempty"`
	SigtermLatestMs   *int64 `json:"sigtermLatestMs,omitempty"`
	// StopMs is when the pod was first told to stop: SigtermMs.
	StopMs *int64 `json:"stopMs,omitempty"`
	// StopContainer is the container the verdict rests on: the regular
	// container told to stop first.
	StopContainer string `json:"stopContainer,omitempty"`
	// StopSignal is the signal StopContainer is stopped with where the
	// pod names one (Timeline.StopSignals); nil for SIGTERM or the image's
	// STOPSIGNAL. The "sigterm" fields time it whatever its name.
	StopSignal *StopSignal `json:"stopSignal,omitempty"`
	// WindowMs is StopMs - EndpointOutMs: positive is the time the data
	// plane had to converge, negative is a race window.
	WindowMs *int64 `json:"windowMs,omitempty"`
	// IngressOutMs is when the Ingress controller stopped picking the pod
	// for new requests, as read from its API (Timeline.IngressAPI; nil
	// when not read or not seen), and IngressWindowMs the time from then
	// to the pod's stop (negative: a race with the proxy).
	IngressOutMs    *int64 `json:"ingressOutMs,omitempty"`
	IngressWindowMs *int64 `json:"ingressWindowMs,omitempty"`
	// PropagationMs is the time kube-proxy, Ingress controllers and load
	// balancers are given to stop sending traffic, counted from the delete
	// request (Options.Propagation).
	PropagationMs int64 `json:"propagationMs"`
	// ShortByMs is how much sooner than PropagationMs after the delete
	// request the pod was told to stop; nil when it was not.
	ShortByMs *int64 `json:"propagationShortByMs,omitempty"`
	// Window is how the window was judged (race, too-short,
	// order-unknown, met), empty when it was not (no Service, no
	// SIGTERM time, a SIGKILL, a sidecar told to stop first).
	Window Window `json:"window,omitempty"`
	// DeadlineMs is the grace deadline (SIGKILL) since the request.
	DeadlineMs int64 `json:"deadlineMs"`
	// PreStopDelayMs is the preStop delay of StopContainer (0 when its
	// hook failed or it has none).
	PreStopDelayMs int64 `json:"preStopDelayMs"`
	// PreStopFailed is a FailedPreStopHook before the grace deadline: a
	// hook that failed at once, whose delay never happened.
	PreStopFailed bool `json:"preStopFailed"`
	// PreStopAbandoned is a container's preStop outlasting the grace
	// period (ContainerStop.PreStopAbandoned).
	PreStopAbandoned bool `json:"preStopAbandoned"`
	// abandonReports are the FailedPreStopHook Events at or after the
	// deadline, by container: the kubelet's report of a hook it
	// abandoned, not of one that failed at once.
	abandonReports map[string]int64
	// Containers says when each container was told to stop, regular
	// containers first, then native sidecars.
	Containers []ContainerStop `json:"containers"`
	Exits      []Exit          `json:"exits"`
	// Requests is what the probe's requests showed; nil without a probe.
	Requests *RequestsVerdict `json:"requests,omitempty"`
	// PartialStreams are the watches cut or stalled while the race was
	// being decided (partialStreams). CannotTell is set when that is the
	// only risk: what arrived showed none, but the verdict cannot say SAFE.
	PartialStreams []string `json:"partialStreams"`
	CannotTell     bool     `json:"cannotTell"`
	// Findings are the sentences of the verdict, risks first.
	Findings []string `json:"findings"`
	// unknownHooks are the regular containers whose preStop hook of
	// unknown length bounds SIGTERM (boundUnknownHooks), hookBases how.
	unknownHooks, hookBases []string
	// doubt, when set, holds the gap-stamped facts the window would rest
	// on: it is not judged (doubtFinding).
	doubt *gapDoubt
}

// Options tune the verdict.
type Options struct {
	// Propagation is how long kube-proxy, Ingress controllers and cloud
	// load balancers are given to stop sending traffic to a terminating
	// pod, counted from the delete request; a pod told to stop sooner is a
	// risk. Zero means DefaultPropagation.
	Propagation time.Duration
}

// DefaultPropagation is the default Options.Propagation: 5 s, the same as
// the audit's preStop floor (inspect.DefaultOptions().PreStopFloorSeconds),
// so that a preStop that passes the audit passes the watch.
const DefaultPropagation = 5 * time.Second

// sortedEvents returns tl's events in the order they were received (stable
// for events received at the same instant), the order the verdict reads
// them in (and the renderers, internal/timeline/render's inOrder).
func sortedEvents(tl *Timeline) []Event {
	return slices.SortedStableFunc(slices.Values(tl.Events), func(a, b Event) int { return a.Recv.Compare(b.Recv) })
}

// ComputeWith derives the verdict from a timeline. It is pure: the same
// timeline and options always give the same verdict. The rules are those of
// docs/watch-verdict.md. A window judged on facts stamped by a gap is
// judged again with them at their gap's start; when the judgement changes,
// the verdict claims neither: it cannot tell (verdict_gapstamp.go).
func ComputeWith(tl *Timeline, o Options) Verdict {
	v := judge(tl, o, nil)
	if d := gapDoubtOf(tl, &v); d != nil && !holdsAcrossGap(tl, o, v) {
		v = judge(tl, o, d)
	}
	return v
}

// judge derives the verdict from tl's stamps as they are; with doubt set,
// it judges no window (doubtFinding).
func judge(tl *Timeline, o Options, doubt *gapDoubt) Verdict {
	if o.Propagation <= 0 {
		o.Propagation = DefaultPropagation
	}
	v := Verdict{BehindService: len(tl.Services) > 0, DeadlineMs: tl.deadline(), PropagationMs: o.Propagation.Milliseconds(),
		NoReadyEndpoint: []string{}, Containers: []ContainerStop{}, Exits: []Exit{}, Findings: []string{}, PartialStreams: []string{}}
	evs := sortedEvents(tl)
	rt := routingOf(tl, evs)
	v.EndpointOutMs, v.ReadyOutMs = rt.out, rt.readyOut
	for _, f := range rt.fallback {
		v.NoReadyEndpoint = append(v.NoReadyEndpoint, f.service)
	}
	exits := exitsOf(tl, evs)
	sigtermFacts(tl, evs, exits, &v)
	restartedHook(tl, evs, exits, &v)
	widenForLateKubelet(exits, &v)
	for _, e := range evs {
		if e.Kind == KindContainerExit && e.ExitCode != nil {
			ms, _ := tl.Ms(e.Recv)
			v.Exits = append(v.Exits, Exit{Container: e.Container, Ms: ms, Code: *e.ExitCode, Server: e.Server, Meaning: exitMeaning(*e.ExitCode), Reason: e.reason})
		}
	}
	attachExits(&v)
	if v.StopMs != nil && v.EndpointOutMs != nil {
		v.WindowMs = new(*v.StopMs - *v.EndpointOutMs)
	}
	if v.StopMs != nil {
		if short := v.PropagationMs - (*v.StopMs - terminationStart(&v)); short > 0 {
			v.ShortByMs = new(short)
		}
	}
	v.Requests = requestsVerdict(tl, evs, &v)
	if p := partialStreams(tl, &v); p != nil {
		v.PartialStreams = p
	}
	if v.doubt = doubt; doubt != nil {
		v.PartialStreams = append(v.PartialStreams, doubt.streams...)
		slices.Sort(v.PartialStreams)
		v.PartialStreams = slices.Compact(v.PartialStreams)
	}
	findings(tl, evs, rt, &v)
	return v
}

// terminationStart is the first sign of the termination in milliseconds
// since T0: T0 itself, or an earlier Killing or endpoint change when the
// deletion was seen (T0 "deletion-seen" is only an upper bound on the
// request, and each watch delivers on its own).
func terminationStart(v *Verdict) int64 {
	return min(0, ptr.Deref(v.KillingMs, 0), ptr.Deref(v.ReadyOutMs, 0))
}

func joinNames(names []string) string {
	if len(names) == 0 {
		return "-"
	}
	return strings.Join(names, ", ")
}
