package timeline

import (
	"fmt"
	"time"
)

// lateExitSlack is how much later than SIGTERM's estimate (a preStop delay
// read from the spec) a container's exit may be reported before the
// verdict says the estimate is uncertain. An exit is reported up to about
// 1 s after the process ended on a real node (exitReportLag), so a report
// later than this is not always a late SIGTERM: the finding says so.
const lateExitSlack = 1000 // ms

// widenForLateKubelet moves SIGTERM's latest bound to the first container's
// reported exit when that came later than the bound and the endpoint had
// already left: the kubelet itself ends a preStop delay and sends SIGTERM,
// so a kubelet that is stopped, starved or restarted meanwhile sends it
// late, writing nothing the API shows (measured on the real node: a
// kubelet stopped 7 s inside a 5 s sleep hook sent SIGTERM 2.3 s after the
// spec's time). The process ends after SIGTERM, so the exit bounds it. An
// endpoint that left after the spec's bound is left to the race it shows,
// which rests on the kubelet being on time.
func widenForLateKubelet(exits map[string]int64, v *Verdict) {
	if v.SigtermMs == nil || v.PreStopDelayMs <= 0 || v.SigtermLatestMs == nil {
		return
	}
	x, exited := exits[v.StopContainer]
	if !exited || x <= *v.SigtermLatestMs || (v.EndpointOutMs != nil && *v.EndpointOutMs > *v.SigtermLatestMs) {
		return
	}
	v.SigtermLatestMs = new(x)
}

// lateSigtermFinding says when the exit was reported much later than the
// estimated SIGTERM (widenForLateKubelet): the app may have taken that long
// after SIGTERM, the kubelet may have sent SIGTERM late, or, in a pod of
// several containers, reported the exit only with the others' (it does so
// for a container that ends while another is still in its preStop,
// docs/real-node.md); the API cannot tell these apart.
func lateSigtermFinding(tl *Timeline, v *Verdict, l *findingList) {
	if v.SigtermMs == nil || v.PreStopDelayMs <= 0 || v.SigtermLatestMs == nil {
		return
	}
	late := *v.SigtermLatestMs - *v.SigtermMs
	if late <= lateExitSlack {
		return
	}
	others := ""
	if len(tl.Containers)+len(tl.NativeSidecars) > 1 {
		others = ", or the kubelet reported the exit only with the other containers' (as it does for one that ends while another is still in its preStop: its finishedAt tells)"
	}
	l.fact("SIGTERM uncertain by %d ms: container %s's exit was reported at %+d ms, %d ms after its estimated SIGTERM; either the app took that long to exit after SIGTERM, the kubelet reported the exit that late (it does so up to about 1 s after the process ended), or the kubelet, which ends the preStop hook and sends SIGTERM itself, did so late (stopped, starved or restarted: the API shows no sign of it)%s. SIGTERM came between %+d and %+d ms",
		late, v.StopContainer, *v.SigtermLatestMs, late, others, *v.SigtermEarliestMs, *v.SigtermLatestMs)
}

// restartedHook moves the SIGTERM estimate of the first container told to
// stop to a later Killing of it that came before its preStop delay ran
// out: a kubelet that restarts mid-termination finds the pod terminating
// and stops its containers anew, preStop hook included, and the first
// hook's timer died with the old kubelet (measured on the real node: a
// kubelet killed 1 s into a 5 s sleep hook and started 2 s later wrote
// Killing again and sent SIGTERM 5 s after that). The earliest bound stays
// the first hook's end: the API does not show whether it ran out first.
func restartedHook(tl *Timeline, evs []Event, exits map[string]int64, v *Verdict) {
	if v.SigtermMs == nil || v.PreStopDelayMs <= 0 || v.SigtermLatestMs == nil || v.SigtermBasis != SigtermFromKilling {
		return
	}
	c, d := v.StopContainer, v.PreStopDelayMs
	base, again := *v.SigtermMs-d, false
	for _, e := range evs {
		if e.Kind != KindKilling || e.Initial || (e.Container != "" && e.Container != c) {
			continue
		}
		if k, _ := tl.Ms(e.Recv); k > base && k < base+d {
			base, again = k, true
		}
	}
	if !again || (tl.GracePeriodSeconds > 0 && base+d >= v.DeadlineMs) {
		return
	}
	slack := *v.SigtermLatestMs - *v.SigtermMs
	v.StopMs, v.SigtermMs = new(base+d), new(base+d)
	v.SigtermLatestMs = new(beforeExit(base+d+slack, base+d, exits[c]))
	v.SigtermBasisText = fmt.Sprintf("Killing again at %+d ms, before the first preStop could end: the kubelet began the termination anew (it restarted) and ran the hook again, + preStop %s", base, time.Duration(d)*time.Millisecond)
	for i := range v.Containers {
		if v.Containers[i].Name == c {
			v.Containers[i].SigtermMs = new(base + d)
		}
	}
}
