package nodewatch

import "strings"

// missingFindings says, one line each, what the watch could not see and
// what it therefore cannot tell: the verdict is never SAFE on a fact it
// lacked.
func missingFindings(w *Watch, v *Verdict, risk func(string, ...any)) {
	cannot := func(s string, a ...any) { v.CannotTell = true; risk(s, a...) }
	if v.Terminated == 0 && (len(v.Remaining) == 0 || w.T0.IsZero()) {
		return // nothing terminated or was deleted: no fact was needed
	}
	if w.EndpointsUnseen {
		cannot("cannot tell: the EndpointSlices could not be watched: no pod's race against its endpoints can be judged")
	}
	if w.ServicesUnseen {
		cannot("cannot tell: the Services could not be listed: no Service's ready endpoints were tracked, so no workload's capacity can be judged")
	}
	if w.EventsUnseen {
		cannot("cannot tell: the Events could not be watched: a SIGKILL at the grace deadline or a failed preStop (Killing, FailedPreStopHook) is not seen, and SIGTERM is estimated from the deletion")
	}
	if w.BudgetsUnseen && len(v.Workloads) > 0 {
		cannot("cannot tell: the PodDisruptionBudgets could not be watched: no workload's time below its budget's desiredHealthy can be told")
	}
	var unknown []string
	for _, wr := range v.Workloads {
		for _, b := range wr.Budgets {
			if b.Unknown != "" {
				unknown = append(unknown, workloadRef(wr.Workload)+"'s PodDisruptionBudget "+b.Name+" ("+b.Unknown+")")
			}
		}
	}
	if len(unknown) > 0 {
		cannot("cannot tell the time below desiredHealthy of %s", strings.Join(unknown, "; "))
	}
}
