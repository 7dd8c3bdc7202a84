package timeline

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/probe"
)

// RequestsVerdict is what the probe's requests showed. Times are
// milliseconds since the delete request, taken at each request's start.
type RequestsVerdict struct {
	// URL is the probed URL.
	URL    string `json:"url"`
	Total  int    `json:"total"`
	Failed int    `json:"failed"`
	// FirstFailedMs and LastFailedMs bound the starts of the failed
	// requests; nil without failures.
	FirstFailedMs *int64 `json:"firstFailedMs,omitempty"`
	LastFailedMs  *int64 `json:"lastFailedMs,omitempty"`
	// Kinds counts the failures by outcome, most frequent first.
	Kinds []LabelCount `json:"kinds"`
	// Network counts the failures the network gave no answer to
	// (probe.NoAnswer: no connection was ever set up) that the
	// termination does not explain: started before the endpoint left the
	// traffic or before the pod was told to stop, when a live pod's
	// kernel answers a connection even if its app does not. They are
	// counted in Failed and Kinds but not held against the app, nor placed
	// in InRaceWindow or AfterEndpointOut.
	Network int `json:"network"`
	// InRaceWindow counts failed requests started inside the race window
	// the API showed (from StopMs to EndpointOutMs when WindowMs < 0);
	// AfterEndpointOut those started when or after the endpoint left the traffic,
	// while the data plane was still converging.
	InRaceWindow     int `json:"inRaceWindow"`
	AfterEndpointOut int `json:"afterEndpointOut"`
	// AfterEndpointOutKinds counts those AfterEndpointOut by outcome: on
	// a real data plane a timeout there is a request kube-proxy's rules
	// still sent to the pod's address after nothing answered on it
	// (docs/probe.md, "What each failure means").
	AfterEndpointOutKinds []LabelCount `json:"afterEndpointOutKinds"`
	// Latency percentiles in seconds (whole microseconds) of the requests started before
	// the delete request and of those started during the termination (from
	// the request to the pod object's removal, or the end of the watch);
	// nil when there were none. Failed requests count with the time they
	// took to fail.
	BeforeP50Seconds *float64 `json:"latencyBeforeP50Seconds,omitempty"`
	BeforeP99Seconds *float64 `json:"latencyBeforeP99Seconds,omitempty"`
	DuringP50Seconds *float64 `json:"latencyDuringP50Seconds,omitempty"`
	DuringP99Seconds *float64 `json:"latencyDuringP99Seconds,omitempty"`
	// Proxy counts the failures by who made their answer, from the
	// Ingress controller's access log (watch --probe-access-log); nil
	// when it was not read.
	Proxy *ProxyCounts `json:"proxy,omitempty"`
}

// RequestSpan is what a set of requests is judged against, in
// milliseconds on one clock: ms reads a request's start on it, end closes
// "during", races are the race windows the API showed ([from, to]),
// endpointOut the first moment an endpoint left the traffic.
type RequestSpan struct {
	// Ms maps a time to milliseconds on the verdict's clock.
	Ms func(time.Time) (int64, bool)
	// End is the clock's end, in ms.
	End int64
	// Races are the windows [stop, endpoint out] in ms in which the
	// container had stopped before its endpoint left.
	Races [][2]int64
	// EndpointOut is when the first endpoint left, in ms (nil: never).
	EndpointOut *int64
	// Stop is when the pod was told to stop, in ms (nil: not known, then
	// only EndpointOut bounds the stale rules, staleRule).
	Stop *int64
	// Terminated maps the IP of each pod that terminated to when its last
	// container exited, in ms (AddTerminated), for the proxy's access log
	// (ProxyCounts).
	Terminated map[string]int64
}

// staleRule reports whether a request started at ms that the network gave
// no answer to can be kube-proxy's rules still sending to the stopped
// pod's address (they lag the EndpointSlice, docs/probe.md): it started
// when or after the endpoint left the traffic and the pod was told to
// stop. Before either, the pod's address answers.
func (sp RequestSpan) staleRule(ms int64) bool {
	return sp.EndpointOut != nil && ms >= *sp.EndpointOut && (sp.Stop == nil || ms >= *sp.Stop)
}

// JudgeRequests counts the requests, their failures by kind and place,
// and the latency before the clock's 0 and during [0, end].
func JudgeRequests(url string, rs []probe.Result, sp RequestSpan) *RequestsVerdict {
	rv := &RequestsVerdict{URL: url, Total: len(rs), Kinds: failureKinds(rs)}
	var before, during []time.Duration
	var after []probe.Result
	for _, r := range rs {
		ms, _ := sp.Ms(r.Start)
		switch {
		case ms < 0:
			before = append(before, r.Latency)
		case ms <= sp.End:
			during = append(during, r.Latency)
		}
		if !r.Failed() {
			continue
		}
		rv.Failed++
		rv.Proxy = rv.Proxy.add(r.Proxy, ms, sp.Terminated)
		rv.FirstFailedMs = new(min(ms, ptr.Deref(rv.FirstFailedMs, ms)))
		rv.LastFailedMs = new(max(ms, ptr.Deref(rv.LastFailedMs, ms)))
		if r.Kind == probe.NoAnswer && !sp.staleRule(ms) {
			rv.Network++
			continue
		}
		switch {
		case slices.ContainsFunc(sp.Races, func(w [2]int64) bool { return ms >= w[0] && ms <= w[1] }):
			rv.InRaceWindow++
		case sp.EndpointOut != nil && ms >= *sp.EndpointOut:
			rv.AfterEndpointOut++
			after = append(after, r)
		}
	}
	rv.AfterEndpointOutKinds = failureKinds(after)
	rv.BeforeP50Seconds, rv.BeforeP99Seconds = percentiles(before)
	rv.DuringP50Seconds, rv.DuringP99Seconds = percentiles(during)
	return rv
}

// requestsVerdict judges the probe's requests against one pod's
// termination; nil when no probe ran.
func requestsVerdict(tl *Timeline, evs []Event, v *Verdict) *RequestsVerdict {
	if tl.ProbeURL == "" {
		return nil
	}
	sp := RequestSpan{Ms: tl.Ms, End: terminationEnd(tl, evs), EndpointOut: v.EndpointOutMs, Stop: v.StopMs, Terminated: map[string]int64{}}
	AddTerminated(sp.Terminated, tl, *v, 0)
	if v.WindowMs != nil && sigtermOrder(v) == orderBefore && sigkilledAfterSigterm(v) == nil {
		sp.Races = [][2]int64{{*v.StopMs, *v.EndpointOutMs}}
	}
	return JudgeRequests(tl.ProbeURL, tl.Requests, sp)
}

// terminationEnd is the pod object's removal in ms since T0, or the end of
// the watch when it was not seen.
func terminationEnd(tl *Timeline, evs []Event) int64 {
	for _, e := range evs {
		if e.Kind == KindPodGone {
			ms, _ := tl.Ms(e.Recv)
			return ms
		}
	}
	ms, _ := tl.Ms(tl.End)
	if tl.End.IsZero() {
		return 1<<62 - 1
	}
	return ms
}

// percentiles returns the p50 and p99 of ds in milliseconds (nearest rank).
func percentiles(ds []time.Duration) (p50, p99 *float64) {
	if len(ds) == 0 {
		return nil, nil
	}
	s := slices.Sorted(slices.Values(ds))
	at := func(q float64) *float64 {
		i := int(q*float64(len(s))+0.999999) - 1
		sec := float64(s[min(max(i, 0), len(s)-1)].Microseconds()) / 1e6
		return &sec
	}
	return at(0.50), at(0.99)
}

// Findings are what rv shows, in the sentences of a verdict (a pod's
// Verdict.Findings, a rollout's): a risk when a request failed other than
// by the network's fault (how many, between which times, of which kinds),
// else a fact that none failed; a fact of the network's failures
// (Network: a fact, the network's, not the app's); a fact of the latency
// before start and during what (the clock's 0 and the span judged, "the
// delete request" and "the termination" for a pod). The verdict says
// after the risk where the failures fell against what the API showed.
func (rv *RequestsVerdict) Findings(start, what string) (risks, facts []string) {
	var l findingList
	switch {
	case rv.Failed == 0:
		l.fact("0 of %d requests to %s failed", rv.Total, rv.URL)
	case rv.Failed > rv.Network:
		l.risk("%d of %d requests failed between %+d ms and %+d ms (%s)", rv.Failed, rv.Total, *rv.FirstFailedMs, *rv.LastFailedMs, KindsText(rv.Kinds))
	}
	if rv.Network > 0 {
		l.fact("%d of %d requests to %s got no answer: network (no connection was ever set up: the packets were dropped or found no route on the way), while the pod was still routed and not yet told to stop, when its own kernel would have answered: the network's failures, not the app's; they tell nothing of its shutdown",
			rv.Network, rv.Total, rv.URL)
	}
	if rv.Proxy != nil {
		l.fact("%s", rv.Proxy.text())
	}
	if lat := latencyText(rv, start, what); lat != "" {
		l.fact("request latency p50/p99: %s", lat)
	}
	return l.risks, l.facts
}

// requestFindings says how many requests failed, when, and how that
// relates to what the API showed.
func requestFindings(v *Verdict, l *findingList) {
	if v.Requests == nil {
		return
	}
	risks, facts := v.Requests.Findings("the delete request", "the termination")
	if len(risks) > 0 {
		risks = append(risks, placeFailures(v))
	}
	l.risks, l.facts = append(l.risks, risks...), append(l.facts, facts...)
}

// placeFailures relates the failed requests to the race window the API
// showed, and to the preStop delay when the data plane kept routing to the
// pod after it was told to stop.
func placeFailures(v *Verdict) string {
	rv := v.Requests
	var s string
	switch {
	case v.WindowMs != nil && sigtermOrder(v) == orderBefore && sigkilledAfterSigterm(v) == nil:
		s = fmt.Sprintf("%d of them inside the race window the API showed (%+d ms to %+d ms), %d after the endpoint left the traffic", rv.InRaceWindow, *v.StopMs, *v.EndpointOutMs, rv.AfterEndpointOut)
	case v.EndpointOutMs != nil && rv.AfterEndpointOut == rv.Failed-rv.Network:
		s = fmt.Sprintf("the API showed no race window, yet %d failed after the endpoint left the traffic at %+d ms: the data plane kept routing to the pod while it converged, which the API cannot show", rv.AfterEndpointOut, *v.EndpointOutMs)
	case v.WindowMs != nil && sigtermOrder(v) == orderUnknown && sigkilledAfterSigterm(v) == nil:
		s = fmt.Sprintf("SIGTERM (between %+d and %+d ms) and the endpoint leaving the traffic (%+d ms) are too close for the API to order; the failures show that the pod stopped serving while the data plane still sent it requests", *v.SigtermEarliestMs, *v.SigtermLatestMs, *v.EndpointOutMs)
	case v.EndpointOutMs != nil && rv.AfterEndpointOut > 0:
		s = fmt.Sprintf("the API showed no race window, yet %d failed after the endpoint left the traffic at %+d ms: the data plane kept routing to the pod while it converged, which the API cannot show", rv.AfterEndpointOut, *v.EndpointOutMs)
	case v.EndpointOutMs != nil:
		s = fmt.Sprintf("all of them before the endpoint left the traffic at %+d ms, while the pod was still routed", *v.EndpointOutMs)
	default:
		s = "the API showed no endpoint change to set them against"
	}
	if v.EndpointOutMs != nil && v.StopMs != nil && *rv.LastFailedMs >= *v.StopMs && *rv.LastFailedMs > *v.EndpointOutMs {
		seen := *rv.LastFailedMs - *v.EndpointOutMs
		s += fmt.Sprintf("; %s until %+d ms, %d ms after its endpoint left the traffic at %+d ms, though it was told to stop at %+d ms: the preStop delay (%d ms) is shorter than the propagation the data plane took (at least %d ms)",
			lateRequestsText(rv.AfterEndpointOutKinds), *rv.LastFailedMs, seen, *v.EndpointOutMs, *v.StopMs, v.PreStopDelayMs, seen)
	}
	return s
}

// lateRequestsText says what the failures after the endpoint left mean on
// a real data plane (docs/probe.md, "What each failure means"): a timeout
// got no answer at all (rules still sent it to the pod's address, stale
// after the endpoint was removed, and nothing answered there); a refusal
// is the app's port closed, or kube-proxy rejecting for a Service left
// with no endpoint; a reset is a connection cut; an HTTP status came from
// whatever answered in front of the pod.
func lateRequestsText(kinds []LabelCount) string {
	if len(kinds) == 0 {
		return "requests still reached the pod"
	}
	var parts []string
	for _, k := range kinds {
		switch k.Kind {
		case probe.NoAnswer:
			parts = append(parts, fmt.Sprintf("%d got no answer at all (no connection: rules still sending to the pod's address, where nothing answered)", k.Count))
		case probe.Timeout:
			parts = append(parts, fmt.Sprintf("%d timed out once connected (something accepted the connection and did not answer in time)", k.Count))
		case probe.Refused:
			parts = append(parts, fmt.Sprintf("%d were refused (the app's port closed, or kube-proxy rejecting a Service left with no endpoint)", k.Count))
		case probe.Reset:
			parts = append(parts, fmt.Sprintf("%d were reset (connections cut as the app stopped)", k.Count))
		default:
			parts = append(parts, fmt.Sprintf("%d got %s", k.Count, k.label()))
		}
	}
	return "requests kept failing: " + strings.Join(parts, ", ") + ","
}

// latencyText is "p50/p99 ms before start, p50/p99 ms during what"; ""
// without requests.
func latencyText(rv *RequestsVerdict, start, what string) string {
	f := func(p50, p99 *float64, when string) string {
		if p50 == nil {
			return ""
		}
		return fmt.Sprintf("%.1f/%.1f ms %s", msOf(*p50), msOf(*p99), when)
	}
	b, d := f(rv.BeforeP50Seconds, rv.BeforeP99Seconds, "before "+start), f(rv.DuringP50Seconds, rv.DuringP99Seconds, "during "+what)
	return strings.Join(slices.DeleteFunc([]string{b, d}, func(s string) bool { return s == "" }), ", ")
}

// msOf turns a latency in seconds (whole microseconds) back into
// milliseconds, rounded to the microsecond so that the text prints what it
// printed when the latency was kept in milliseconds.
func msOf(sec float64) float64 { return math.Round(sec*1e6) / 1000 }
