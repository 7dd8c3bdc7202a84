package timeline

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/gapcount"
)

// findingList collects the verdict's sentences, risks apart from facts.
type findingList struct{ risks, facts []string }

func (l *findingList) risk(s string, a ...any) { l.risks = append(l.risks, fmt.Sprintf(s, a...)) }
func (l *findingList) fact(s string, a ...any) { l.facts = append(l.facts, fmt.Sprintf(s, a...)) }

func findings(tl *Timeline, evs []Event, rt routing, v *Verdict) {
	var l findingList
	endpointFindings(tl, rt, v, &l)
	if s, ok := tl.StopSignals[v.StopContainer]; ok && v.StopContainer != "" {
		v.StopSignal = &s
	}
	if f := tl.signalFact(v.StopContainer); f != "" {
		l.fact("%s", f)
	}
	switch {
	case v.SigtermMs != nil:
		first := "the first told to stop"
		if len(v.unknownHooks) > 0 {
			first = "the first of the containers whose preStop length is known"
		}
		l.fact("%s estimated at %+d ms (%s) for container %s, %s", tl.signalOf(v.StopContainer), *v.SigtermMs, v.SigtermBasisText, v.StopContainer, first)
		lateSigtermFinding(tl, v, &l)
	case v.StopMs == nil:
		var unknown []string
		for _, cs := range v.Containers {
			if cs.PreStop == PreStopUnknown {
				unknown = append(unknown, cs.Name)
			}
		}
		bound := ""
		if v.SigtermEarliestMs != nil {
			bound = fmt.Sprintf("; bounded by what was observed: between +%d and %+d ms (%s)", *v.SigtermEarliestMs, *v.SigtermLatestMs, v.SigtermBasisText)
		}
		l.fact("SIGTERM time unknown: the preStop hook's duration cannot be read from the spec (httpGet or a script) for container(s) %s%s", joinNames(unknown), bound)
	}
	containerFindings(tl, v, &l)
	if tl.HasKind(KindExceededGrace) {
		l.risk("ExceededGracePeriod: the kubelet had to kill the container after the grace period")
	}
	windowFindings(tl, rt, v, &l)
	ingressFindings(tl, evs, v, &l)
	requestFindings(v, &l)
	gapFindings(tl, &l)
	if len(l.risks) == 0 {
		partialFinding(v, &l)
	}
	// A doubt beside another risk is one risk among several: the verdict
	// is that risk, never "cannot tell, no risk seen" (doubtFinding).
	v.CannotTell = v.CannotTell && len(l.risks) == 1
	v.Risk = len(l.risks) > 0
	v.Findings = append(append(v.Findings, l.risks...), l.facts...)
}

// endpointFindings says when the pod stopped receiving traffic, and why
// that was later than its endpoint leaving the ready sets when a Service
// had no other ready endpoint.
func endpointFindings(tl *Timeline, rt routing, v *Verdict, l *findingList) {
	switch {
	case tl.AlreadyTerminating:
		l.fact("the pod was already terminating when the watch started: what happened before (the endpoint leaving its ready sets, preStop) was not seen, times are from the watch's start")
	case !v.BehindService && !tl.EndpointsUnseen:
		l.fact("not behind any Service: no endpoint race")
	case tl.EndpointsUnseen:
		l.fact("EndpointSlices could not be watched: the endpoint track is missing and the race cannot be judged")
	case rt.readyAtEnd != "" && tl.HasKind(KindPodGone):
		// Seen ready and never seen leaving: the pod stopped behind an
		// endpoint still ready, as when the EndpointSlice controller is
		// down (its API server frozen).
		l.risk("the endpoint was still ready in EndpointSlice %s when the pod was gone: it never left a ready set while watched, so Services could route traffic to the stopped pod (the EndpointSlice controller did not update the slice)", rt.readyAtEnd)
	case v.ReadyOutMs == nil && v.EndpointOutMs == nil && len(rt.fallback) == 0:
		l.fact("the endpoint was never seen leaving a ready set (it was not in any EndpointSlice while watched)")
	case v.ReadyOutMs != nil && len(rt.fallback) == 0:
		l.fact("endpoint out of every ready set at %+d ms (Services: %s)", *v.ReadyOutMs, joinNames(tl.Services))
	}
	for _, f := range rt.fallback {
		until := "until the end of the watch"
		switch {
		case v.EndpointOutMs != nil && rt.outByOthers:
			until = fmt.Sprintf("until another pod's endpoint turned ready at %+d ms", *v.EndpointOutMs)
		case v.EndpointOutMs != nil:
			until = fmt.Sprintf("until it stopped serving at %+d ms", *v.EndpointOutMs)
		}
		l.fact("Service %s had no ready endpoint left from %+d ms: kube-proxy then sends traffic to endpoints that are serving and terminating, so the pod did not stop receiving traffic when it left the ready set; it kept receiving traffic %s", f.service, f.fromMs, until)
		nowhereFinding(f, v, rt, l)
	}
}

// nowhereFinding says when the pod, the Service's last serving endpoint,
// stopped serving before another pod's endpoint was ready: from then on
// the Service had nothing to send traffic to. kube-proxy refuses new
// connections to a Service without endpoints, and until its next sync
// (at most once a second, docs/real-node.md) its rules still send them
// to the pod's address, where nothing answers: timeouts. A fact, not a
// risk of the pod's termination: the pod stopped serving in time; the
// requests that failed, when probed, make it one.
func nowhereFinding(f fallbackSpan, v *Verdict, rt routing, l *findingList) {
	if v.EndpointOutMs == nil || rt.outByOthers {
		return
	}
	out := *v.EndpointOutMs
	until := "until the end of the watch (no other pod's endpoint was seen ready)"
	if f.backMs != nil {
		until = fmt.Sprintf("until another pod's endpoint turned ready at %+d ms (%d ms)", *f.backMs, *f.backMs-out)
	}
	l.fact("traffic had nowhere to go: Service %s had no endpoint serving from %+d ms, when its last one, this pod, stopped serving, %s; requests to it meanwhile fail (refused, or timing out where stale rules still send them to the pod's address)", f.service, out, until)
}

// containerFindings says which containers were stopped too early or
// killed, and how.
func containerFindings(tl *Timeline, v *Verdict, l *findingList) {
	for _, cs := range v.Containers {
		if !cs.PreStopAbandoned {
			continue
		}
		report := ""
		if f, ok := v.abandonReports[cs.Name]; ok {
			report = fmt.Sprintf("; the FailedPreStopHook at %+d ms is the kubelet reporting the hook it cut short, not a hook that failed at once", f)
		}
		l.risk("the preStop of container %s (%s) outlasts the grace period (%d s): the kubelet abandons the hook when the grace period runs out and only then sends %s, at about %+d ms, leaving the app its minimum of 2 s before SIGKILL%s",
			cs.Name, tl.PreStop[cs.Name].Delay, tl.GracePeriodSeconds, tl.signalHedged(cs.Name), *cs.SigtermMs, report)
	}
	early := earlyKills(v)
	switch {
	case v.PreStopFailed && len(early) > 0:
		l.risk("FailedPreStopHook before the grace deadline: the hook's process was killed with its container (below), so whether the hook itself could run cannot be told")
	case v.PreStopFailed && len(tl.KillsByName) > 0:
		c := slices.Sorted(maps.Keys(tl.KillsByName))[0]
		l.risk("FailedPreStopHook before the grace deadline: the pod shares its process namespace and container %s's preStop runs %q, which signals the processes of that name in every container: a hook whose container it stopped ends with it, so whether the hook itself could run cannot be told", c, tl.KillsByName[c])
	case v.PreStopFailed:
		l.risk("FailedPreStopHook before the grace deadline: the preStop hook failed at once (often a missing sleep binary in the image), so its delay never happened and SIGTERM came at once")
	}
	sidecarFindings(tl, v, l)
	nativeSidecarHookFindings(tl, v, l)
	exitOrderFindings(v, l)
	for _, x := range v.Exits {
		l.fact("%s", exitFact(tl, x))
		switch {
		case x.Code == 137 && x.Reason == "OOMKilled":
			l.risk("container %s was OOM-killed (exit 137) at %+d ms: the kernel killed it for memory, not the termination", x.Container, x.Ms)
		case x.Code == 137 && early[x.Container]:
			l.risk("container %s was killed with SIGKILL (exit 137) at %+d ms, %d ms before the grace deadline (%+d ms): not the kubelet's SIGKILL, which comes only at the deadline; %s",
				x.Container, x.Ms, v.DeadlineMs-x.Ms, v.DeadlineMs, earlyKillCause(tl, x))
		case x.Code == 137:
			l.risk("container %s was SIGKILLed (exit 137) at %+d ms, grace deadline %+d ms: the app ignored %s or shut down too slowly", x.Container, x.Ms, v.DeadlineMs, tl.signalHedged(x.Container))
		}
	}
}

// earlyKillMs is how long before the grace deadline an exit 137 must be
// reported to be no SIGKILL of the kubelet's: the kubelet's comes only at
// the deadline (kuberuntime killContainer), and the deadline here may be
// late by the time the deletion took to be seen.
const earlyKillMs = 2000

// earlyKills are the containers that exited 137 (not OOMKilled) well
// before the grace deadline.
func earlyKills(v *Verdict) map[string]bool {
	out := map[string]bool{}
	for _, x := range v.Exits {
		if x.Code == 137 && x.Reason != "OOMKilled" && x.Ms < v.DeadlineMs-earlyKillMs {
			out[x.Container] = true
		}
	}
	return out
}

// earlyKillCause says who killed a container before the deadline, as far
// as the spec and the pod's conditions show.
func earlyKillCause(tl *Timeline, x Exit) string {
	if len(tl.PauseSignals) > 0 {
		c := slices.Sorted(maps.Keys(tl.PauseSignals))[0]
		cause := fmt.Sprintf("the pod shares its process namespace and container %s's preStop runs %q: PID 1 is the pod's pause process, which exits on it, and the kernel then kills every process of the pod", c, tl.PauseSignals[c])
		if c == x.Container {
			cause += fmt.Sprintf("; %s was still in that hook, so it never got %s: where the lines here say SIGTERM for it, read when it was killed", c, tl.signalHedged(c))
		}
		return cause
	}
	for _, e := range tl.Events {
		if ms, _ := tl.Ms(e.Recv); e.sandboxDown && ms <= x.Ms {
			return fmt.Sprintf("the pod's sandbox ended with it (PodReadyToStartContainers=False at %+d ms), and its containers were killed with it", ms)
		}
	}
	return "the OOM killer or another process that can signal it: the API does not say which"
}

// sidecarFindings flags ordinary containers without preStop that got
// SIGTERM while the app still slept in its preStop.
func sidecarFindings(tl *Timeline, v *Verdict, l *findingList) {
	app, ok := appInPreStop(tl, v)
	if !ok {
		return
	}
	appUntil := "its preStop ended (duration unknown)"
	if app.SigtermMs != nil {
		appUntil = fmt.Sprintf("%+d ms", *app.SigtermMs)
	}
	for _, cs := range v.Containers {
		if !cs.StoppedBeforeApp {
			continue
		}
		at := "at once"
		if cs.SigtermMs != nil {
			at = fmt.Sprintf("at %+d ms", *cs.SigtermMs)
		}
		msg := fmt.Sprintf("container %s has no preStop: it got SIGTERM %s while container %s still slept in its preStop (%s) until %s, so the app kept serving through a container that was draining or gone. Fix: run %s as a native sidecar (an initContainer with restartPolicy: Always, stopped after the app), give it a preStop that outlasts the app's, or use the mesh's own drain setting (Istio: terminationDrainDuration or EXIT_ON_ZERO_ACTIVE_CONNECTIONS)",
			cs.Name, at, app.Name, preStopText(tl.PreStop[app.Name], app.PreStop == PreStopFailed), appUntil, cs.Name)
		if v.BehindService || tl.EndpointsUnseen {
			l.risk("%s", msg)
		} else {
			l.fact("%s (not behind any Service: no Service traffic is lost)", msg)
		}
	}
}

// outText names the moment the window is measured from.
func outText(rt routing) string {
	if len(rt.fallback) > 0 {
		return "it stopped receiving traffic"
	}
	return "the endpoint left every ready set"
}

// windowFindings rates the time between the pod leaving the traffic and
// it being told to stop: a race when negative, a risk when the pod was
// told to stop sooner than the propagation time after the request.
func windowFindings(tl *Timeline, rt routing, v *Verdict, l *findingList) {
	if v.doubt != nil {
		doubtFinding(v, l)
		return
	}
	if v.BehindService && !tl.AlreadyTerminating && sigkilledAfterSigterm(v) == nil && boundFindings(tl, rt, v, l) {
		return
	}
	if !v.BehindService || tl.AlreadyTerminating || v.WindowMs == nil {
		v.ShortByMs = nil
		return
	}
	w, out, sig := *v.WindowMs, outText(rt), tl.signalOf(v.StopContainer)
	short := ""
	if v.ShortByMs != nil {
		short = fmt.Sprintf(": %d ms short of the %s (--propagation) that kube-proxy, Ingress controllers and load balancers are given to stop sending traffic", *v.ShortByMs, time.Duration(v.PropagationMs)*time.Millisecond)
	}
	sidecarFirst := slices.ContainsFunc(v.Containers, func(cs ContainerStop) bool { return cs.StoppedBeforeApp && cs.Name == v.StopContainer })
	switch {
	case sigkilledAfterSigterm(v) != nil:
		x := sigkilledAfterSigterm(v)
		l.fact("container %s did not stop on %s (estimated %s): it went on running until the kubelet SIGKILLed it at the grace deadline (exit reported at %+d ms), so the %s time does not bound when it stopped serving; requests routed to it meanwhile were answered for as long as the app served, and those in flight at the SIGKILL were cut", v.StopContainer, tl.signalHedged(v.StopContainer), signedWindow(w, out), x.Ms, sig)
	case sidecarFirst:
		l.fact("window: container %s got %s %d ms after %s%s", v.StopContainer, sig, w, out, short)
	case sigtermOrder(v) == orderUnknown:
		why := "no preStop delay"
		if v.PreStopFailed {
			why = "the preStop hook failed"
		} else if v.PreStopDelayMs > 0 {
			why = "a preStop delay"
		}
		v.Window = WindowUnknown
		if v.ShortByMs != nil || v.PreStopDelayMs == 0 {
			// Before or after, SIGTERM came too soon: short either way.
			v.Window = WindowTooShort
		}
		l.risk("%s: %s came between +%d and %+d ms (estimated from %s) and %s at %+d ms: the order cannot be told from the API. Either way kube-proxy, Ingress controllers and load balancers were still converging: expect errors on every rollout%s", why, sig, *v.SigtermEarliestMs, *v.SigtermLatestMs, v.SigtermBasisText, out, *v.EndpointOutMs, short)
	case w < 0:
		v.Window = WindowRace
		l.risk("race window: container %s was told to stop %d ms BEFORE %s; requests routed to it meanwhile fail", v.StopContainer, -w, out)
	case v.PreStopDelayMs == 0:
		v.Window = WindowTooShort
		l.risk("no preStop delay: %s came %d ms after %s, while kube-proxy, Ingress controllers and load balancers were still converging; that window is their convergence time, which the API cannot show: expect errors on every rollout%s", sig, w, out, short)
	case v.ShortByMs != nil:
		v.Window = WindowTooShort
		l.risk("window too short: %s came %d ms after %s, %+d ms after the delete request%s; raise the preStop delay by at least that much", sig, w, out, *v.StopMs, short)
	default:
		v.Window = WindowMet
		l.fact("window: %s came %d ms after %s: that is the time kube-proxy and load balancers have to stop sending traffic (--propagation %s met)", sig, w, out, time.Duration(v.PropagationMs)*time.Millisecond)
	}
}

// gapFindings says how often the watch was cut or stalled.
func gapFindings(tl *Timeline, l *findingList) {
	stalls := 0
	var cuts []gapcount.Gap
	for _, g := range tl.Gaps {
		if g.Stalled {
			stalls++
		} else {
			cuts = append(cuts, gapcount.Gap{Stream: g.Stream, From: g.From, To: g.To})
		}
	}
	if len(cuts) > 0 {
		l.fact("%s (gaps marked above): changes inside a gap are stamped when they arrived, not when they happened", gapcount.Sentence(cuts))
	}
	if stalls > 0 {
		l.fact("the watch stalled %d time(s) (marked above): a change arrived more than %s after the server's time for it, so the times around it are late", stalls, stallThreshold)
	}
}

// sigkilledAfterSigterm returns the exit of the container the verdict rests
// on when it was SIGKILLed (137) after being sent SIGTERM: it ignored the
// signal or shut down too slowly, so it served past the SIGTERM estimate.
func sigkilledAfterSigterm(v *Verdict) *Exit {
	if v.SigtermMs == nil {
		return nil
	}
	for i, x := range v.Exits {
		// Reported after SIGTERM and no sooner than a second before the
		// deadline (finishedAt is whole seconds): the grace period's kill,
		// not an OOM kill or one from before the deletion.
		if x.Container == v.StopContainer && x.Code == 137 && x.Ms >= *v.SigtermMs && x.Ms+1000 >= v.DeadlineMs {
			return &v.Exits[i]
		}
	}
	return nil
}

// signedWindow says where SIGTERM came against out in words.
func signedWindow(w int64, out string) string {
	if w < 0 {
		return fmt.Sprintf("%d ms before %s", -w, out)
	}
	return fmt.Sprintf("%d ms after %s", w, out)
}

type order int

const (
	orderNone    order = iota // no SIGTERM estimate or no endpoint change
	orderBefore               // SIGTERM surely before the endpoint left: a race
	orderAfter                // SIGTERM surely after it
	orderUnknown              // the endpoint left inside SIGTERM's bounds
)

// sigtermOrder places the endpoint's leaving against SIGTERM's bounds.
func sigtermOrder(v *Verdict) order {
	if v.EndpointOutMs == nil || v.SigtermEarliestMs == nil || v.SigtermLatestMs == nil {
		if v.WindowMs != nil && *v.WindowMs < 0 {
			return orderBefore
		}
		return orderNone
	}
	switch out := *v.EndpointOutMs; {
	case *v.SigtermLatestMs < out:
		return orderBefore
	case *v.SigtermEarliestMs > out:
		return orderAfter
	}
	return orderUnknown
}

// nativeSidecarHookFindings flags native sidecars whose own preStop hook
// may end them while the app still sleeps in its preStop: their hooks run
// at the start of termination, beside the app's (docs/watch-verdict.md,
// "The container the verdict rests on").
func nativeSidecarHookFindings(tl *Timeline, v *Verdict, l *findingList) {
	app, ok := appInPreStop(tl, v)
	if !ok || !(v.BehindService || tl.EndpointsUnseen) {
		return
	}
	appPS := tl.PreStop[app.Name]
	for _, c := range tl.NativeSidecars {
		ps := tl.PreStop[c]
		if !ps.Has || (ps.Known && appPS.Known && ps.Delay >= appPS.Delay) {
			continue
		}
		l.risk("native sidecar %s has a preStop hook (%s) that the kubelet runs at the start of termination, beside container %s's preStop (%s): cannot tell from the spec whether it stops %s while %s still serves; if it does, requests through %s fail. Give %s no preStop (native sidecars are stopped after the app) or one that outlasts the app's",
			c, preStopText(ps, false), app.Name, preStopText(appPS, app.PreStop == PreStopFailed), c, app.Name, c, c)
	}
}
