package nodewatch

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubectl-graceful/kubectl-graceful/internal/timeline/podset"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// WorkloadResult is one workload's part of the drain: its pods that
// terminated on the nodes, judged as a rollout on the watch's clock.
type WorkloadResult struct {
	Workload rollout.Workload `json:"workload"`
	// Nodes are the followed nodes its pods ran on.
	Nodes []string `json:"nodes"`
	// FailedPreStop counts the pods whose preStop hook failed.
	FailedPreStop int `json:"failedPreStop"`
	// Risk is true when a pod raced its endpoints, had a window too short,
	// was SIGKILLed or is at risk by its own verdict, or a PodDisruptionBudget covering it was
	// seen below its desiredHealthy.
	Risk bool `json:"risk"`
	// CannotTell is true when Risk rests only on pods that cannot be
	// judged (a watch cut or stalled while their race was decided,
	// rollout.PodResult.CannotBeJudged): its row says "cannot tell",
	// never RISK or safe.
	CannotTell bool `json:"cannotTell"`
	// Budgets are the PodDisruptionBudgets that select its pods, each
	// followed over the watch. BudgetsUnknown, when set, says why they
	// could not be told at all (the budgets could not be watched).
	Budgets        []BudgetResult `json:"budgets"`
	BudgetsUnknown string         `json:"budgetsUnknown,omitempty"`
	// CapacityUnknown, when set, says why its Services' ready endpoints
	// were not tracked (Verdict.Capacity is then empty, not zero).
	CapacityUnknown string `json:"capacityUnknown,omitempty"`
	// Verdict is the rollout verdict of its pods (rollout.ComputeWith):
	// pods, capacity of its Services, findings.
	Verdict rollout.Verdict `json:"verdict"`
}

// Verdict is the answer for the whole drain.
type Verdict struct {
	// Risk is true when any workload is at risk, or the watch ended before
	// the nodes were empty: the command exits 2.
	Risk bool `json:"risk"`
	// CannotTell is true when a fact the verdict needs was not seen (a
	// stream forbidden, a budget's status not observed): never SAFE then.
	CannotTell bool           `json:"cannotTell"`
	Ended      timeline.Ended `json:"ended"`
	Terminated int            `json:"terminated"`
	Raced      int            `json:"raced"`
	// WindowTooShort counts the pods told to stop after their endpoint
	// left but too soon (rollout.PodResult.WindowTooShort): no race.
	WindowTooShort int `json:"windowTooShort"`
	Killed         int `json:"sigkilled"`
	// DurationMs is from the first deletion to the end of the watch.
	DurationMs *int64           `json:"durationMs,omitempty"`
	Workloads  []WorkloadResult `json:"workloads"`
	// Remaining are the evictable pods still on the nodes at the end.
	Remaining []string `json:"remaining"`
	Findings  []string `json:"findings"`
}

// ComputeWith judges every workload's pods with rollout.ComputeWith and o
// (--propagation), then the drain as a whole. It is pure.
func ComputeWith(w *Watch, o timeline.Options) Verdict {
	v := Verdict{Ended: w.Ended, Workloads: []WorkloadResult{}, Remaining: w.Remaining}
	if v.Remaining == nil {
		v.Remaining = []string{}
	}
	for _, r := range w.Workloads {
		v.Workloads = append(v.Workloads, workloadResult(w, r, o))
	}
	if !w.T0.IsZero() {
		v.DurationMs = new(w.End.Sub(w.T0).Milliseconds())
	}
	findings(w, &v)
	return v
}

func workloadResult(w *Watch, r *rollout.Rollout, o timeline.Options) WorkloadResult {
	rv := rollout.ComputeWith(r, o)
	res := WorkloadResult{Workload: r.Workload, Nodes: []string{}, Verdict: rv, Budgets: budgetResults(w, w.budgets[r])}
	if w.BudgetsUnseen {
		res.BudgetsUnknown = "the PodDisruptionBudgets could not be watched"
	}
	switch {
	case w.EndpointsUnseen:
		res.CapacityUnknown = "the EndpointSlices could not be watched"
	case w.ServicesUnseen:
		res.CapacityUnknown = "the Services could not be listed"
	}
	if res.CapacityUnknown != "" {
		res.Verdict.Capacity = []rollout.CapacityResult{}
	}
	for _, tl := range r.Pods {
		if n, _ := w.place(tl); n != "" && !slices.Contains(res.Nodes, n) {
			res.Nodes = append(res.Nodes, n)
		}
	}
	seen := false // a risk seen, not only a pod that cannot be judged
	for _, p := range rv.Pods {
		if p.Verdict.PreStopFailed {
			res.FailedPreStop++
		}
		res.CannotTell = res.CannotTell || p.CannotBeJudged()
		seen = seen || p.Raced || p.WindowTooShort || p.Killed || p.Verdict.Risk && !p.CannotBeJudged()
	}
	for _, b := range res.Budgets {
		seen = seen || b.BelowMs != nil && *b.BelowMs > 0
	}
	res.Risk, res.CannotTell = seen || res.CannotTell, res.CannotTell && !seen
	return res
}

func findings(w *Watch, v *Verdict) {
	var risks, facts []string
	risk := func(s string, a ...any) { risks = append(risks, fmt.Sprintf(s, a...)) }
	fact := func(s string, a ...any) { facts = append(facts, fmt.Sprintf(s, a...)) }
	var atRisk, unjudged, partial []string
	for _, wr := range v.Workloads {
		v.Terminated += wr.Verdict.Terminated
		v.Raced += wr.Verdict.Raced
		v.WindowTooShort += wr.Verdict.WindowTooShort
		v.Killed += wr.Verdict.Killed
		switch {
		case wr.CannotTell:
			unjudged = append(unjudged, workloadRef(wr.Workload))
			for _, p := range wr.Verdict.Pods {
				partial = append(partial, p.Verdict.PartialStreams...)
			}
		case wr.Risk:
			atRisk = append(atRisk, workloadRef(wr.Workload)+" ("+why(wr)+")")
		}
	}
	fact("%d pod(s) of %d workload(s) terminated on %d node(s)", v.Terminated, len(v.Workloads), len(w.Nodes))
	if len(atRisk) > 0 {
		risk("workloads at risk: %s", strings.Join(atRisk, "; "))
	}
	if len(unjudged) > 0 {
		v.CannotTell = true
		slices.Sort(partial)
		risk("cannot tell for workload(s) %s: the %s watch(es) were cut or stalled while their pods' races were decided, and nothing else was seen at risk", strings.Join(unjudged, ", "), strings.Join(slices.Compact(partial), ", "))
	}
	switch w.Ended {
	case timeline.EndedEmpty:
		fact("no evictable pod is left on the nodes (DaemonSet and mirror pods stay)")
	case timeline.EndedNodesDeleted:
		fact("every node was deleted")
	case timeline.EndedTimeout, timeline.EndedInterrupted, timeline.EndedStopped:
		how := map[timeline.Ended]string{timeline.EndedTimeout: "reached --timeout", timeline.EndedInterrupted: "was interrupted", timeline.EndedStopped: "ended with the drain"}[w.Ended]
		switch {
		case len(v.Remaining) > 0 && w.T0.IsZero():
			// Nobody drained: pods that were never deleted are no risk.
			fact("the watch %s before any pod on the nodes was deleted: no drain seen (%d evictable pod(s) on the nodes)", how, len(v.Remaining))
		case len(v.Remaining) > 0:
			// Not seen is no risk seen: the headline says CANNOT TELL
			// unless a workload was seen at risk.
			v.CannotTell = true
			risk("the watch %s with %d evictable pod(s) still on the nodes (%s): their terminations were not seen to the end, cannot tell",
				how, len(v.Remaining), stillTerminating(w))
		default:
			fact("the watch %s", how)
		}
	}
	switch {
	case len(w.unlisted) > 0:
		fact("the watch ended before the pods on %s were listed: what was on them is not known", strings.Join(w.unlisted, ", "))
	case w.T0.IsZero() && len(v.Workloads) == 0:
		fact("no evictable pod was on the nodes: nothing to watch")
	}
	missingFindings(w, v, risk)
	silenceFindings(w, risk, fact)
	if cuts := podset.CutSentence(w.Gaps); cuts != "" {
		fact("%s (gaps marked above): changes inside a gap are stamped when they arrived", cuts)
	}
	v.Risk = len(risks) > 0
	v.Findings = append(risks, facts...)
}

// workloadRef names a workload in a finding as the audit's findings and
// the drain's warnings do: "shop/Deployment/web", the kind as the API
// spells it (inspect.ObjectRef), not kubectl's lowercase
// "deployment/web" of the rollout watch.
func workloadRef(w rollout.Workload) string {
	return inspect.ObjectRef{Kind: w.Kind, Namespace: w.Namespace, Name: w.Name}.String()
}

// why names what put a workload at risk.
func why(wr WorkloadResult) string {
	var out []string
	rv := wr.Verdict
	if rv.Raced > 0 {
		out = append(out, fmt.Sprintf("%d raced their endpoints", rv.Raced))
	}
	if rv.WindowTooShort > 0 {
		out = append(out, fmt.Sprintf("%d with a window too short, %s", rv.WindowTooShort, rv.Shortfall()))
	}
	if rv.Killed > 0 {
		out = append(out, fmt.Sprintf("%d SIGKILLed", rv.Killed))
	}
	if wr.FailedPreStop > 0 {
		out = append(out, fmt.Sprintf("%d failed their preStop", wr.FailedPreStop))
	}
	for _, b := range wr.Budgets {
		if b.BelowMs != nil && *b.BelowMs > 0 {
			out = append(out, fmt.Sprintf("PodDisruptionBudget %s below its desiredHealthy for %d ms, fewest currentHealthy %d of %d", b.Name, *b.BelowMs, b.MinCurrentHealthy, b.MinDesiredHealthy))
		}
	}
	if len(out) == 0 {
		out = append(out, "see its pods' findings")
	}
	return strings.Join(out, ", ")
}

// stillTerminating says which of the pods left were still terminating
// (their deletion seen) and which were not deleted yet, each pod once.
func stillTerminating(w *Watch) string {
	waiting := slices.DeleteFunc(slices.Clone(w.Remaining), func(p string) bool { return slices.Contains(w.Terminating, p) })
	out := fmt.Sprintf("still terminating: %d (%s)", len(w.Terminating), someOf(w.Terminating))
	return out + fmt.Sprintf(", not deleted yet: %d (%s)", len(waiting), someOf(waiting))
}

// namedAtMost is how many pods a finding names; -o json's remaining
// lists them all.
const namedAtMost = 5

// someOf names the first namedAtMost of s, then how many more.
func someOf(s []string) string {
	switch {
	case len(s) == 0:
		return "none"
	case len(s) > namedAtMost:
		return fmt.Sprintf("%s and %d more", strings.Join(s[:namedAtMost], ", "), len(s)-namedAtMost)
	}
	return strings.Join(s, ", ")
}
