package rollout

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/timeline/podset"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// PodResult is one terminated pod's verdict, computed by Compute on its
// own Timeline (times in it are milliseconds since that pod's deletion).
type PodResult struct {
	Pod string `json:"pod"`
	UID string `json:"uid"`
	// DeletedMs is when the pod's deletion was seen, in milliseconds since
	// the rollout's T0.
	DeletedMs int64 `json:"deletedMs"`
	// Raced is true for a race: the app told to stop before the endpoint
	// left the ready sets (timeline.Verdict.Raced).
	Raced bool `json:"raced"`
	// WindowTooShort is true when it was told to stop sooner than
	// --propagation after the delete request or with no preStop delay, and
	// not before the endpoint left (timeline.Verdict.WindowShort): no race
	// seen, still a risk; Verdict.ShortByMs says by how much.
	WindowTooShort bool `json:"windowTooShort"`
	// Killed is true when a container was SIGKILLed (exit 137, killed
	// inside preStop, ExceededGracePeriod).
	Killed  bool             `json:"sigkilled"`
	Verdict timeline.Verdict `json:"verdict"`
}

// CapacityResult is one Service's capacity over the rollout, from its T0
// (the watch's start when no rollout was seen) to the end of the watch.
type CapacityResult struct {
	Service string `json:"service"`
	// Desired is the workload's desired replicas at the end.
	Desired int32 `json:"desired"`
	// MinReady is the fewest ready endpoints seen, first at MinReadyMs
	// (milliseconds since the rollout's T0), with MinDesired the desired
	// replicas at that moment.
	MinReady   int32  `json:"minReady"`
	MinDesired int32  `json:"minDesired"`
	MinReadyMs *int64 `json:"minReadyMs,omitempty"`
	// BelowDesiredMs is the total time with fewer ready endpoints than
	// desired replicas, starting first at BelowDesiredFromMs.
	BelowDesiredMs     int64  `json:"belowDesiredMs"`
	BelowDesiredFromMs *int64 `json:"belowDesiredFromMs,omitempty"`
	// Budget, when a PodDisruptionBudget selects the workload, is its name
	// and desiredHealthy; BelowBudgetMs the time spent below it.
	Budget         string `json:"budget,omitempty"`
	DesiredHealthy *int32 `json:"desiredHealthy,omitempty"`
	BelowBudgetMs  int64  `json:"belowBudgetMs"`
	// EndReady is the ready endpoint count at the end of the watch.
	EndReady int32 `json:"endReady"`
}

// Verdict is the answer for the whole workload: which pods raced or
// were SIGKILLed, whether any Service ran short of ready endpoints, and
// whether the rollout completed.
type Verdict struct {
	// Risk is true for any pod at risk, capacity below a budget, or a
	// rollout that did not complete: the command exits 2.
	Risk bool `json:"risk"`
	// CannotTell is true when Risk rests only on pods that cannot be
	// judged (PodResult.CannotBeJudged): the headline says CANNOT TELL,
	// never RISK or SAFE; the command still exits 2.
	CannotTell bool           `json:"cannotTell"`
	Complete   bool           `json:"complete"`
	Ended      timeline.Ended `json:"ended"`
	DurationMs *int64         `json:"durationMs,omitempty"`
	Terminated int            `json:"terminated"`
	Raced      int            `json:"raced"`
	Killed     int            `json:"sigkilled"`
	// WorstWindowMs is the smallest window of the pods that raced.
	WorstWindowMs *int64 `json:"worstWindowMs,omitempty"`
	WorstPod      string `json:"worstPod,omitempty"`
	// WindowTooShort counts the pods whose window was too short but no
	// race; WorstShortByMs is the largest shortfall against --propagation
	// among them (nil when none says it), of pod WorstShortPod.
	WindowTooShort int              `json:"windowTooShort"`
	WorstShortByMs *int64           `json:"worstShortByMs,omitempty"`
	WorstShortPod  string           `json:"worstShortPod,omitempty"`
	NeverReady     []string         `json:"neverReady"`
	Pods           []PodResult      `json:"pods"`
	Capacity       []CapacityResult `json:"capacity"`
	// Requests is what the probe's requests showed, times since the
	// rollout's T0; nil without a probe.
	Requests *timeline.RequestsVerdict `json:"requests,omitempty"`
	Findings []string                  `json:"findings"`
}

// ComputeWith derives the rollout verdict: each terminated pod's
// verdict by ComputeWith and o (--propagation), the capacity of each
// Service, and the rollout's end. It is pure.
func ComputeWith(r *Rollout, o timeline.Options) Verdict {
	v := Verdict{Complete: r.Complete, Ended: r.Ended, NeverReady: r.NeverReady, Pods: []PodResult{}, Capacity: []CapacityResult{}}
	if v.NeverReady == nil {
		v.NeverReady = []string{}
	}
	for _, tl := range r.Terminated() {
		v.Pods = append(v.Pods, podResult(r, tl, o))
	}
	for _, tr := range r.Capacity {
		v.Capacity = append(v.Capacity, capacityResult(r, tr))
	}
	if r.Complete && !r.T0.IsZero() {
		v.DurationMs = new(r.CompleteAt.Sub(r.T0).Milliseconds())
	}
	v.Requests = rolloutRequests(r, &v)
	rolloutFindings(r, &v)
	return v
}

func podResult(r *Rollout, tl *timeline.Timeline, o timeline.Options) PodResult {
	pv := timeline.ComputeWith(tl, o)
	res := PodResult{Pod: tl.Pod, UID: tl.UID, Verdict: pv}
	res.DeletedMs, _ = r.Ms(tl.T0)
	for _, x := range pv.Exits {
		res.Killed = res.Killed || x.Code == 137
	}
	res.Killed = res.Killed || tl.HasKind(timeline.KindExceededGrace)
	res.Raced = pv.Raced() && !res.Killed
	res.WindowTooShort = pv.WindowShort() && !res.Killed
	return res
}

// CannotBeJudged reports whether p's race cannot be told (a watch cut or
// stalled while it was decided, timeline.Verdict.CannotTell) and it was
// not SIGKILLed, which is a risk whatever the race.
func (p PodResult) CannotBeJudged() bool { return p.Verdict.CannotTell && !p.Killed }

// capacityResult walks a Service's samples as a step function over
// [from, r.End], from being the rollout's T0 (the watch's start when none).
func capacityResult(r *Rollout, tr *CapacityTrack) CapacityResult {
	from := cmp.Or(r.T0, r.Start)
	res := CapacityResult{Service: tr.Service, MinReady: -1}
	if len(r.Budgets) > 0 {
		b := r.Budgets[0]
		res.Budget, res.DesiredHealthy = b.Name, &b.DesiredHealthy
	}
	ms := func(t time.Time) int64 { return t.Sub(from).Milliseconds() }
	for i, s := range tr.Samples {
		end := r.End
		if i+1 < len(tr.Samples) {
			end = tr.Samples[i+1].Recv
		}
		start := s.Recv
		if start.Before(from) {
			start = from
		}
		res.Desired, res.EndReady = s.Desired, s.Ready
		if end.Before(from) {
			continue
		}
		if res.MinReady < 0 || s.Ready < res.MinReady {
			res.MinReady, res.MinDesired, res.MinReadyMs = s.Ready, s.Desired, new(ms(start))
		}
		span := max(end.Sub(start).Milliseconds(), 0)
		if s.Ready < s.Desired {
			res.BelowDesiredMs += span
			if res.BelowDesiredFromMs == nil {
				res.BelowDesiredFromMs = new(ms(start))
			}
		}
		if res.DesiredHealthy != nil && s.Ready < *res.DesiredHealthy {
			res.BelowBudgetMs += span
		}
	}
	if res.MinReady < 0 {
		res.MinReady = 0
	}
	return res
}

func rolloutFindings(r *Rollout, v *Verdict) {
	var risks, facts []string
	risk := func(s string, a ...any) { risks = append(risks, fmt.Sprintf(s, a...)) }
	fact := func(s string, a ...any) { facts = append(facts, fmt.Sprintf(s, a...)) }
	v.Terminated = len(v.Pods)
	atRisk, cannotTell := 0, 0
	for _, p := range v.Pods {
		switch {
		case p.Raced:
			v.Raced++
			if w := p.Verdict.WindowMs; v.WorstWindowMs == nil || *w < *v.WorstWindowMs {
				v.WorstWindowMs, v.WorstPod = new(*w), p.Pod
			}
		case p.WindowTooShort:
			v.WindowTooShort++
			if s := p.Verdict.ShortByMs; s != nil && (v.WorstShortByMs == nil || *s > *v.WorstShortByMs) {
				v.WorstShortByMs, v.WorstShortPod = new(*s), p.Pod
			}
		case p.Killed:
			v.Killed++
		}
		if p.Verdict.Risk {
			atRisk++
		}
		if p.CannotBeJudged() {
			cannotTell++
		}
	}
	fact("%d pod(s) terminated", v.Terminated)
	if v.Raced > 0 {
		risk("%d of %d terminated pod(s) raced their endpoints (worst window %+d ms, pod %s): requests routed to them after they were told to stop fail", v.Raced, v.Terminated, *v.WorstWindowMs, v.WorstPod)
	}
	if v.WindowTooShort > 0 {
		risk("%d of %d terminated pod(s) had a window too short (%s), no race seen: told to stop sooner than --propagation after the delete request, while the data plane may still send them requests; raise the preStop delay", v.WindowTooShort, v.Terminated, v.Shortfall())
	}
	if v.Killed > 0 {
		risk("%d pod(s) SIGKILLed: still running at the grace deadline", v.Killed)
	}
	if cannotTell > 0 {
		risk("%d pod(s) cannot be judged: a watch was cut or stalled while their race was decided (see their findings)", cannotTell)
	}
	if other := atRisk - v.Raced - v.WindowTooShort - v.Killed - cannotTell; other > 0 {
		risk("%d other pod(s) at risk (see their findings)", other)
	}
	for _, c := range v.Capacity {
		capacityFindings(c, risk, fact)
	}
	if r.ServicesUnseen {
		fact("the Services could not be listed: no capacity track")
	} else if len(r.Services) == 0 {
		fact("no Service selects the workload: no endpoint race, no capacity track")
	}
	endFindings(r, v, risk, fact)
	reqRisks, reqFacts := rolloutRequestFindings(v)
	risks, facts = append(risks, reqRisks...), append(facts, reqFacts...)
	if cuts := podset.CutSentence(r.Gaps); cuts != "" {
		fact("%s (gaps marked above): changes inside a gap are stamped when they arrived", cuts)
	}
	v.Risk = len(risks) > 0
	v.CannotTell = cannotTell > 0 && len(risks) == 1
	v.Findings = append(risks, facts...)
}

func capacityFindings(c CapacityResult, risk, fact func(string, ...any)) {
	if c.MinReadyMs == nil {
		// No sample: the watch ended (Ctrl-C, --timeout) before the first
		// List of the EndpointSlices; "0 of 0" would read as no endpoint.
		fact("Service %s: its ready endpoints were not seen before the watch ended", c.Service)
		return
	}
	at := fmt.Sprintf(", first at %+d ms", *c.MinReadyMs)
	fact("Service %s: fewest ready endpoints %d of %d desired%s; %d at the end", c.Service, c.MinReady, c.MinDesired, at, c.EndReady)
	if c.BelowDesiredFromMs != nil {
		fact("Service %s: below the desired replicas for %d ms in all, first from %+d ms", c.Service, c.BelowDesiredMs, *c.BelowDesiredFromMs)
	}
	if c.DesiredHealthy != nil {
		if c.BelowBudgetMs > 0 {
			risk("Service %s: ready endpoints below PodDisruptionBudget %s's desiredHealthy %d for %d ms", c.Service, c.Budget, *c.DesiredHealthy, c.BelowBudgetMs)
		} else {
			fact("Service %s: never below PodDisruptionBudget %s's desiredHealthy %d", c.Service, c.Budget, *c.DesiredHealthy)
		}
	}
}

func endFindings(r *Rollout, v *Verdict, risk, fact func(string, ...any)) {
	switch r.Ended {
	case timeline.EndedComplete:
		if v.DurationMs != nil {
			fact("rollout complete %d ms after its start (%s)", *v.DurationMs, cmp.Or(t0Texts[r.T0Source], string(r.T0Source)))
		}
	case timeline.EndedStalled:
		risk("rollout stalled: %s", r.Stalled)
	case timeline.EndedTimeout, timeline.EndedInterrupted:
		how, stop := "did not complete before --timeout", "reached --timeout"
		if r.Ended == timeline.EndedInterrupted {
			how, stop = "was interrupted before it completed", "was interrupted"
		}
		if r.T0.IsZero() {
			fact("the watch %s before any rollout started: nothing to judge", stop)
		} else {
			risk("rollout %s: %s", how, cmp.Or(r.LastStatus, "-"))
		}
	}
	if len(r.NeverReady) > 0 {
		msg := "pod(s) never Ready while watched: " + strings.Join(r.NeverReady, ", ")
		if r.Ended == timeline.EndedComplete {
			fact("%s", msg)
		} else {
			risk("%s", msg)
		}
	}
	if r.T0.IsZero() && r.Ended == timeline.EndedComplete {
		fact("no rollout, scale-down or drain was seen while watching")
	}
}

// Shortfall says the largest shortfall against --propagation of the pods
// whose window was too short, and of which pod; "with no preStop delay"
// when none says one.
func (v Verdict) Shortfall() string {
	if v.WorstShortByMs == nil {
		return "with no preStop delay"
	}
	return fmt.Sprintf("up to %d ms short of --propagation, pod %s", *v.WorstShortByMs, v.WorstShortPod)
}
