package rollout

import (
	"fmt"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/probe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// requests records a bucket of probe results and prints its line when the
// RequestLog says so.
func (f *workloadFollower) requests(b probe.Bucket) {
	f.r.Requests = append(f.r.Requests, b.Results...)
	if p := f.cfg.Printer.Requests; p != nil {
		for _, l := range f.reqLog.Lines(b, f.r.T0) {
			p(f.r, l)
		}
	}
}

// rolloutRequests judges the probe's requests against every terminated
// pod: the race windows and endpoint removals of each, moved onto the
// rollout's clock; "during" runs to the rollout's completion or the end of
// the watch. nil without a probe.
func rolloutRequests(r *Rollout, v *Verdict) *timeline.RequestsVerdict {
	if r.ProbeURL == "" {
		return nil
	}
	end := r.End
	if r.Complete {
		end = r.CompleteAt
	}
	endMs, _ := r.Ms(end)
	sp := timeline.RequestSpan{Ms: r.Ms, End: endMs, Terminated: map[string]int64{}}
	terminated := r.Terminated() // v.Pods, in order
	for i, p := range v.Pods {
		pv, off := p.Verdict, p.DeletedMs
		timeline.AddTerminated(sp.Terminated, terminated[i], pv, off)
		if pv.WindowMs != nil && *pv.WindowMs < 0 {
			sp.Races = append(sp.Races, [2]int64{*pv.StopMs + off, *pv.EndpointOutMs + off})
		}
		if pv.EndpointOutMs != nil && (sp.EndpointOut == nil || *pv.EndpointOutMs+off < *sp.EndpointOut) {
			sp.EndpointOut = new(*pv.EndpointOutMs + off)
		}
	}
	return timeline.JudgeRequests(r.ProbeURL, r.Requests, sp)
}

// rolloutRequestFindings says how many requests failed during the rollout
// and where, in the pod verdict's words (RequestsVerdict.Findings).
func rolloutRequestFindings(v *Verdict) (risks, facts []string) {
	rv := v.Requests
	if rv == nil {
		return nil, nil
	}
	risks, facts = rv.Findings("the rollout's start", "the rollout")
	if len(risks) > 0 {
		risks[0] += fmt.Sprintf(": %d inside a race window the API showed, %d when or after a pod's endpoint left the traffic, while the data plane converged",
			rv.InRaceWindow, rv.AfterEndpointOut)
	}
	return risks, facts
}
