package timeline

import (
	"fmt"
	"sort"
	"time"
)

// Exit is one container's exit as seen on the timeline.
type Exit struct {
	Container string    `json:"container"`
	Ms        int64     `json:"ms"`
	Code      int32     `json:"exitCode"`
	Server    time.Time `json:"finishedAt,omitzero"`
	Meaning   string    `json:"meaning,omitempty"`
}

// Verdict is the answer to "did the pod stop receiving traffic before it
// stopped serving?", with the numbers behind it. Times are milliseconds
// since the delete request on the local monotonic clock (Timeline.T0).
type Verdict struct {
	// Risk is true when a race window, a SIGKILL or a FailedPreStopHook was
	// seen: the command exits 2.
	Risk bool `json:"risk"`
	// BehindService is false when no Service selects the pod.
	BehindService bool `json:"behindService"`
	// EndpointOutMs is when the endpoint had left the ready set of every
	// EndpointSlice for good (ready=false or removed); nil when unseen.
	EndpointOutMs *int64 `json:"endpointOutMs,omitempty"`
	// KillingMs is the first Killing event (kubelet starts preStop).
	KillingMs *int64 `json:"killingMs,omitempty"`
	// SigtermMs is the estimated SIGTERM (Killing + preStop from the spec,
	// or Killing alone when the hook failed); nil when the container was
	// killed inside preStop or the hook's duration is unknown.
	SigtermMs *int64 `json:"sigtermEstimatedMs,omitempty"`
	// SigtermBasis says how SigtermMs was estimated.
	SigtermBasis string `json:"sigtermBasis,omitempty"`
	// StopMs is when the app was first told to stop: SigtermMs, or the
	// grace deadline when it was killed inside preStop.
	StopMs *int64 `json:"stopMs,omitempty"`
	// WindowMs is StopMs - EndpointOutMs: positive is the time the data
	// plane had to converge, negative is a race window.
	WindowMs *int64 `json:"windowMs,omitempty"`
	// DeadlineMs is the grace deadline (SIGKILL) since the request.
	DeadlineMs int64 `json:"deadlineMs"`
	// PreStopDelayMs is the preStop delay of the container told to stop
	// first (0 when its hook failed or it has none).
	PreStopDelayMs  int64  `json:"preStopDelayMs"`
	PreStopFailed   bool   `json:"preStopFailed"`
	KilledInPreStop bool   `json:"killedInPreStop"`
	Exits           []Exit `json:"exits"`
	// Findings are the sentences of the verdict, risks first.
	Findings []string `json:"findings"`
}

func ptr(v int64) *int64 { return &v }

// sortedEvents returns the events in receive order.
func sortedEvents(tl *Timeline) []Event {
	evs := append([]Event(nil), tl.Events...)
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].Recv.Before(evs[j].Recv) })
	return evs
}

// Compute derives the verdict from a timeline. It is pure: the same
// timeline always gives the same verdict. The rules are those of
// docs/watch.md ("Verdict").
func Compute(tl *Timeline) Verdict {
	v := Verdict{BehindService: len(tl.Services) > 0, DeadlineMs: tl.Deadline()}
	evs := sortedEvents(tl)
	v.EndpointOutMs = endpointOut(tl, evs)
	sigtermFacts(tl, evs, &v)
	for _, e := range evs {
		if e.Kind == KindContainerExit && e.ExitCode != nil {
			ms, _ := tl.Ms(e.Recv)
			v.Exits = append(v.Exits, Exit{Container: e.Container, Ms: ms, Code: *e.ExitCode, Server: e.Server, Meaning: ExitMeaning(*e.ExitCode)})
		}
	}
	if v.StopMs != nil && v.EndpointOutMs != nil {
		v.WindowMs = ptr(*v.StopMs - *v.EndpointOutMs)
	}
	findings(tl, evs, &v)
	return v
}

// endpointOut walks the endpoint changes and returns the last moment the
// endpoint went from "ready in some slice" to "ready in none", provided it
// stayed out. An endpoint that was never ready while watched gives nil.
func endpointOut(tl *Timeline, evs []Event) *int64 {
	ready := map[string]bool{}
	anyReady := func() bool {
		for _, r := range ready {
			if r {
				return true
			}
		}
		return false
	}
	var out *int64
	for _, e := range evs {
		switch e.Kind {
		case KindEndpointAdded, KindEndpointChanged, KindEndpointRemoved:
		default:
			continue
		}
		was := anyReady()
		if e.Kind == KindEndpointRemoved {
			delete(ready, e.Slice)
		} else {
			ready[e.Slice] = e.Endpoint.Ready
		}
		now := anyReady()
		switch {
		case was && !now:
			ms, _ := tl.Ms(e.Recv)
			out = ptr(ms)
		case now:
			out = nil
		}
	}
	return out
}

// sigtermFacts fills KillingMs, SigtermMs, StopMs and the preStop facts.
// Each container gets SIGTERM after its own preStop; the earliest counts,
// because that is when the pod starts refusing work.
func sigtermFacts(tl *Timeline, evs []Event, v *Verdict) {
	killing := map[string]int64{}
	failed := map[string]bool{}
	var first *int64
	for _, e := range evs {
		ms, _ := tl.Ms(e.Recv)
		if e.Initial {
			ms = 0
		}
		switch e.Kind {
		case KindKilling:
			if first == nil {
				first = ptr(ms)
			}
			for _, c := range containersOf(tl, e.Container) {
				if _, ok := killing[c]; !ok {
					killing[c] = ms
				}
			}
		case KindPreStopFailed:
			v.PreStopFailed = true
			for _, c := range containersOf(tl, e.Container) {
				failed[c] = true
			}
		}
	}
	v.KillingMs = first
	var best *int64
	for _, c := range tl.Containers {
		base, basis := int64(0), "the delete request (no Killing event seen)"
		if k, ok := killing[c]; ok {
			base, basis = k, fmt.Sprintf("Killing at +%d ms", k)
		}
		ps := tl.PreStop[c]
		if !ps.Known && !failed[c] {
			continue
		}
		delay := ps.Delay.Milliseconds()
		if failed[c] {
			delay = 0
		}
		at := base + delay
		if tl.GracePeriodSeconds > 0 && at >= v.DeadlineMs {
			v.KilledInPreStop = true
			at = v.DeadlineMs
			if best == nil || at < *best {
				best, v.PreStopDelayMs = ptr(at), delay
			}
			continue
		}
		if best == nil || at < *best {
			best, v.PreStopDelayMs = ptr(at), delay
			v.SigtermMs = ptr(at)
			switch {
			case failed[c]:
				v.SigtermBasis = basis + "; preStop failed, no delay"
			case ps.Has:
				v.SigtermBasis = fmt.Sprintf("%s + preStop %s", basis, ps.Delay)
			default:
				v.SigtermBasis = basis + ", no preStop"
			}
		}
	}
	v.StopMs = best
	if v.SigtermMs != nil && best != nil && *best < *v.SigtermMs {
		v.SigtermMs = nil
	}
}

// containersOf returns the containers an event is about: the one named, or
// all of them when the event names none.
func containersOf(tl *Timeline, name string) []string {
	if name != "" {
		return []string{name}
	}
	return tl.Containers
}

func findings(tl *Timeline, evs []Event, v *Verdict) {
	var risks, facts []string
	risk := func(s string, a ...any) { risks = append(risks, fmt.Sprintf(s, a...)) }
	fact := func(s string, a ...any) { facts = append(facts, fmt.Sprintf(s, a...)) }

	switch {
	case tl.AlreadyTerminating:
		fact("the pod was already terminating when the watch started: what happened before (the endpoint leaving its ready sets, preStop) was not seen, times are from the watch's start")
	case !v.BehindService && !tl.EndpointsUnseen:
		fact("not behind any Service: no endpoint race")
	case tl.EndpointsUnseen:
		fact("EndpointSlices could not be watched: the endpoint track is missing and the race cannot be judged")
	case v.EndpointOutMs == nil:
		fact("the endpoint was never seen leaving a ready set (it was not in any EndpointSlice while watched)")
	default:
		fact("endpoint out of every ready set at +%d ms (Services: %s)", *v.EndpointOutMs, joinNames(tl.Services))
	}
	switch {
	case v.SigtermMs != nil:
		fact("SIGTERM estimated at +%d ms (%s)", *v.SigtermMs, v.SigtermBasis)
	case v.StopMs == nil:
		fact("SIGTERM time unknown: a preStop hook's duration cannot be read from the spec (httpGet or a script)")
	}
	if v.KilledInPreStop {
		risk("preStop is longer than the grace period (%d s): the container was killed inside preStop at +%d ms, SIGTERM was never sent", tl.GracePeriodSeconds, v.DeadlineMs)
	}
	if v.PreStopFailed {
		risk("FailedPreStopHook: the preStop delay never happened (often a missing sleep binary in the image), SIGTERM came at once")
	}
	for _, x := range v.Exits {
		fact("container %s exited %d at +%d ms (finishedAt %s): %s", x.Container, x.Code, x.Ms, x.Server.UTC().Format("15:04:05"), orDash(x.Meaning))
		if x.Code == 137 {
			risk("container %s was SIGKILLed (exit 137) at +%d ms, grace deadline +%d ms: the app ignored SIGTERM or shut down too slowly", x.Container, x.Ms, v.DeadlineMs)
		}
	}
	for _, e := range evs {
		if e.Kind == KindExceededGrace {
			risk("ExceededGracePeriod: the kubelet had to kill the container after the grace period")
			break
		}
	}
	if v.BehindService && !tl.AlreadyTerminating && v.WindowMs != nil {
		w := *v.WindowMs
		switch {
		case w < 0:
			risk("race window: the app was told to stop %d ms BEFORE the endpoint left every ready set; requests routed to it meanwhile fail", -w)
		case v.PreStopDelayMs == 0:
			risk("no preStop delay: SIGTERM came %d ms after the endpoint left the ready sets, while kube-proxy, Ingress controllers and load balancers were still converging; that window is their convergence time, which the API cannot show: expect errors on every rollout", w)
		case v.KilledInPreStop && v.SigtermMs == nil:
			fact("window: the container was killed %d ms after the endpoint left every ready set", w)
		default:
			fact("window: SIGTERM came %d ms after the endpoint left every ready set: that is the time kube-proxy and load balancers have to stop sending traffic", w)
		}
	}
	if n := len(tl.Gaps); n > 0 {
		fact("the watch was cut %d time(s) (gaps marked above): changes inside a gap are stamped when they arrived, not when they happened", n)
	}
	v.Risk = len(risks) > 0
	v.Findings = append(risks, facts...)
}

func joinNames(names []string) string {
	if len(names) == 0 {
		return "-"
	}
	s := names[0]
	for _, n := range names[1:] {
		s += ", " + n
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
