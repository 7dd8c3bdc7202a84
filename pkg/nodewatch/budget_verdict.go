package nodewatch

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// BudgetResult is one PodDisruptionBudget covering a workload, judged
// from the budget's own status as the disruption controller writes it
// (k8s.io/kubernetes pkg/controller/disruption: status.currentHealthy,
// the ready pods not being deleted, against status.desiredHealthy), over
// the watch: from the first deletion seen (the watch's start when none)
// to its end. Times are ms since the first deletion seen.
//
// MinCurrentHealthy is the fewest currentHealthy observed, with
// MinDesiredHealthy the desiredHealthy then, first at MinMs. BelowMs is
// the time observed with currentHealthy below desiredHealthy, first from
// BelowFromMs. Unknown says why part of the span was not observed (the
// budgets' watch cut, the status listed late or not computed): BelowMs is
// then a lower bound, and nil when no time below was seen.
type BudgetResult struct {
	Name              string `json:"name"`
	MinCurrentHealthy int32  `json:"minCurrentHealthy"`
	MinDesiredHealthy int32  `json:"minDesiredHealthy"`
	MinMs             *int64 `json:"minMs,omitempty"`
	BelowMs           *int64 `json:"belowDesiredHealthyMs"`
	BelowFromMs       *int64 `json:"belowFromMs,omitempty"`
	Unknown           string `json:"unknown,omitempty"`
}

// budgetResult walks a budget's samples as a step function over the
// watch's span, from from; the budgets' watch gaps, a status first listed
// after the span began and a status not yet computed are not observed.
func budgetResult(w *Watch, tr *budgetTrack, from time.Time) BudgetResult {
	ms := func(t time.Time) int64 { return t.Sub(from).Milliseconds() }
	res := BudgetResult{Name: tr.name, MinCurrentHealthy: -1}
	var below int64
	var unknown []string
	if len(tr.samples) > 0 && tr.samples[0].initial && tr.samples[0].recv.After(from) {
		unknown = append(unknown, fmt.Sprintf("its status was first listed at %+d ms", ms(tr.samples[0].recv)))
	}
	for i, s := range tr.samples {
		start, end := later(s.recv, from), w.End
		if i+1 < len(tr.samples) {
			end = tr.samples[i+1].recv
		}
		if end.Before(start) || s.deleted {
			continue
		}
		if s.stale {
			unknown = append(unknown, fmt.Sprintf("its status was not computed for its spec from %+d ms", ms(start)))
			continue
		}
		if res.MinCurrentHealthy < 0 || s.current < res.MinCurrentHealthy {
			res.MinCurrentHealthy, res.MinDesiredHealthy, res.MinMs = s.current, s.desired, new(ms(start))
		}
		if s.current < s.desired {
			below += end.Sub(start).Milliseconds()
			if res.BelowFromMs == nil {
				res.BelowFromMs = new(ms(start))
			}
		}
	}
	for _, g := range w.budgetGaps {
		to := cmp.Or(g.To, w.End)
		if to.After(from) && g.From.Before(w.End) {
			unknown = append(unknown, fmt.Sprintf("the PodDisruptionBudgets' watch was cut from %+d to %+d ms", ms(g.From), ms(to)))
		}
	}
	if res.MinCurrentHealthy < 0 {
		res.MinCurrentHealthy = 0
		unknown = append(unknown, "its status was never observed")
	}
	res.Unknown = strings.Join(unknown, "; ")
	if below > 0 || res.Unknown == "" {
		res.BelowMs = &below
	}
	return res
}

// budgetResults judges the budgets of one workload's record.
func budgetResults(w *Watch, tracks []*budgetTrack) []BudgetResult {
	from := cmp.Or(w.T0, w.Start)
	out := []BudgetResult{}
	for _, tr := range tracks {
		// A budget deleted before the span began covered none of it.
		if n := len(tr.samples); n > 0 && tr.samples[n-1].deleted && !tr.samples[n-1].recv.After(from) {
			continue
		}
		out = append(out, budgetResult(w, tr, from))
	}
	slices.SortFunc(out, func(a, b BudgetResult) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
