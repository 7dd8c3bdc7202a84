package timeline

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/utils/ptr"
)

// hookBound bounds when regular container c, whose preStop hook's length
// the spec does not tell (an exec that is not a plain sleep, an httpGet),
// got SIGTERM, from what was observed: the kubelet starts the hook at
// Killing and sends SIGTERM when it returns, and the process ends after
// SIGTERM, so SIGTERM lies between the request (the Killing Event can
// arrive late, so it is no lower bound) and the container's reported exit,
// or the grace deadline when no exit was seen (SIGKILL then, kuberuntime
// killContainer). ok is false when neither bound exists.
func hookBound(tl *Timeline, c string, killing, exitAt map[string]int64) (earliest, latest int64, b basis, ok bool) {
	kind := "httpGet"
	if tl.ExecPreStop[c] {
		kind = "exec"
	}
	from := "the delete request (no Killing event seen)"
	if k, seen := killing[c]; seen {
		from = fmt.Sprintf("Killing at %+d ms", k)
		if k < 0 {
			earliest = k - eventLead.Milliseconds()
		}
	}
	x, exited := exitAt[c]
	switch {
	case exited && (tl.GracePeriodSeconds <= 0 || x < tl.deadline()):
		latest, b = x, basis{SigtermFromExit, fmt.Sprintf("the exit reported at %+d ms", x)}
	case tl.GracePeriodSeconds > 0:
		latest, b = tl.deadline(), basis{SigtermFromDeadline, fmt.Sprintf("the grace deadline at %+d ms", tl.deadline())}
	default:
		return 0, 0, basis{}, false
	}
	latest = max(latest, earliest)
	stop := "SIGTERM came when it returned"
	if _, ends := tl.PauseSignals[c]; ends {
		// Its kill of PID 1 ends the pod's pause process, and the kernel
		// kills the hook and every container with it (earlyKillCause).
		stop = "it ends the pod's pause process, which kills every container"
	}
	return earliest, latest, basis{b.from, fmt.Sprintf("%s, then the %s hook; %s, no later than %s", from, kind, stop, b.text)}, true
}

// boundUnknownHooks widens SIGTERM's bounds with the regular containers
// whose hook length is unknown: the pod's first SIGTERM is the earliest of
// its containers', so it lies between the least of their earliest bounds
// and the least of their latest. A container whose latest bound comes
// before every other container's earliest was surely told to stop first,
// and the verdict rests on it with bounds but no estimate.
func boundUnknownHooks(tl *Timeline, killing, failed, exits map[string]int64, v *Verdict) {
	for _, c := range tl.Containers {
		ps := tl.PreStop[c]
		if _, hookFailed := failed[c]; hookFailed || !ps.Has || ps.Known {
			continue
		}
		e, l, b, ok := hookBound(tl, c, killing, exits)
		if !ok {
			continue
		}
		switch {
		case v.SigtermLatestMs == nil || l < *v.SigtermEarliestMs:
			v.StopMs, v.SigtermMs, v.StopContainer, v.PreStopDelayMs, v.SigtermBasis, v.SigtermBasisText = nil, nil, c, 0, b.from, b.text
			v.SigtermEarliestMs, v.SigtermLatestMs = new(min(e, ptr.Deref(v.SigtermEarliestMs, e))), new(l)
		case e < *v.SigtermEarliestMs || l < *v.SigtermLatestMs:
			v.SigtermEarliestMs, v.SigtermLatestMs = new(min(e, *v.SigtermEarliestMs)), new(min(l, *v.SigtermLatestMs))
		default:
			continue
		}
		v.unknownHooks, v.hookBases = append(v.unknownHooks, c), append(v.hookBases, c+": "+b.text)
	}
}

// boundFindings rates the window when a hook of unknown length bounds
// SIGTERM: a race when the latest bound comes before the pod left the
// traffic, a risk when it comes sooner than --propagation after the
// request, safe only when the earliest bound is past both, and otherwise
// "cannot tell", a risk too: the API shows no SIGTERM and the spec no
// length. It returns false when no such hook bounds SIGTERM.
func boundFindings(tl *Timeline, rt routing, v *Verdict, l *findingList) bool {
	if len(v.unknownHooks) == 0 || v.SigtermEarliestMs == nil || v.EndpointOutMs == nil {
		return false
	}
	e, lt, out, at := *v.SigtermEarliestMs, *v.SigtermLatestMs, *v.EndpointOutMs, outText(rt)
	p := time.Duration(v.PropagationMs) * time.Millisecond
	start := terminationStart(v)
	who := fmt.Sprintf("the preStop hook of container %s has a length the spec does not tell (%s)", joinNames(v.unknownHooks), strings.Join(v.hookBases, "; "))
	if v.SigtermMs != nil {
		who += fmt.Sprintf(", so container %s, estimated at %+d ms (%s), may not be the first told to stop", v.StopContainer, *v.SigtermMs, v.SigtermBasisText)
	}
	v.ShortByMs = nil
	came := stopCame(tl, v)
	switch {
	case lt < out:
		v.Window = WindowRace
		l.risk("race window: %s: the pod was told to stop by %+d ms at the latest, before %s at %+d ms; requests routed to it meanwhile fail", who, lt, at, out)
	case lt-start < v.PropagationMs:
		v.ShortByMs, v.Window = new(v.PropagationMs-(lt-start)), WindowTooShort
		l.risk("window too short: %s: %s between +%d and %+d ms, at most %d ms after %s at %+d ms and at least %d ms short of the %s (--propagation) that kube-proxy, Ingress controllers and load balancers are given to stop sending traffic; make the delay readable (lifecycle.preStop.sleep, or start the hook with sleep N)",
			who, came, e, lt, lt-out, at, out, *v.ShortByMs, p)
	case e >= out && e-start >= v.PropagationMs:
		v.Window = WindowMet
		l.fact("window: %s: %s between +%d and %+d ms, at least %d ms after %s (--propagation %s met)", who, came, e, lt, e-out, at, p)
	default:
		v.Window = WindowUnknown
		l.risk("cannot tell whether the pod had the %s (--propagation) after it left the traffic: %s: %s between +%d and %+d ms and %s at %+d ms; the API shows no SIGTERM and the spec no length, so it may have come before that or well after. Make the delay readable (lifecycle.preStop.sleep, or start the hook with sleep N), or measure it with --probe",
			p, who, came, e, lt, at, out)
	}
	return true
}

// stopCame says how the containers bounding SIGTERM were stopped: by
// their stop signal, or, when each was killed well before the deadline
// (earlyKills: its hook ended the pod's pause process), by that kill,
// without any signal of the kubelet's (earlyKillCause says who).
func stopCame(tl *Timeline, v *Verdict) string {
	kills := earlyKills(v)
	for _, c := range v.unknownHooks {
		if !kills[c] {
			return tl.signalOf(v.StopContainer) + " came"
		}
	}
	return "it was killed (exit 137) without " + tl.signalHedged(v.StopContainer) + ","
}
