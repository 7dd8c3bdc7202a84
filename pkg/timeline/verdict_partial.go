package timeline

import (
	"fmt"
	"slices"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/ingress"
)

// partialStreams returns the watches (pod, EndpointSlices, Events) that
// were cut or stalled over the stretch that decides the race: from the
// first sign of the termination to the later of the endpoint leaving and
// the latest SIGTERM could have come (the grace deadline when either is
// unknown): there the order of the two tracks cannot be told, so a verdict
// that saw no risk must not say SAFE (docs/watch-verdict.md, "Gaps and
// stalls").
func partialStreams(tl *Timeline, v *Verdict) []string {
	if tl.T0.IsZero() {
		return nil
	}
	from, to := raceSpan(tl, v)
	var out []string
	for _, g := range tl.Gaps {
		end := g.To
		if end.IsZero() {
			end = to.Add(time.Millisecond) // still open: covers the rest
		}
		hid := g.From.Before(to) && end.After(from) && gapHid(tl, g)
		if (hid || stampedIn(tl, g.Stream, from, to)) && !slices.Contains(out, g.Stream) {
			out = append(out, g.Stream)
		}
	}
	slices.Sort(out)
	return out
}

// gapSlack is how soon after a resumed watch a change delivered late
// arrives: a resumed watch replays what it missed at once.
const gapSlack = 250 * time.Millisecond

// gapHid reports whether a gap can have hidden or moved a change, by the
// rules of docs/watch-verdict.md ("Gaps and stalls").
func gapHid(tl *Timeline, g Gap) bool {
	return g.To.IsZero() || g.Relisted || g.Stalled || slices.ContainsFunc(tl.Events, func(e Event) bool {
		return streamOf(e) == g.Stream && !e.Recv.Before(g.From) && !e.Recv.After(g.To.Add(gapSlack))
	})
}

// streamOf names the watch that delivered e.
func streamOf(e Event) string {
	switch {
	case e.Track == Ingress:
		return ingress.StreamName
	case e.Slice != "" || e.Kind == KindServiceEndpoints:
		return StreamEndpointSlices
	case e.Kind == KindKilling, e.Kind == KindPreStopFailed, e.Kind == KindUnhealthy, e.Kind == KindExceededGrace, e.Kind == KindOtherEvent:
		return StreamEvents
	}
	return StreamPods
}

// decidedBy is when, in ms since T0, both sides of the race are known: the
// later of the endpoint leaving and SIGTERM's latest bound, else the grace
// deadline. A latest bound that only a late exit widened (a preStop
// delay the kubelet may have ended late) counts up to the estimate's own
// slack: what a gap after that hides is the kubelet's delay, which the
// API would not show either.
func decidedBy(v *Verdict) int64 {
	endpoint, stop := v.EndpointOutMs, v.SigtermLatestMs
	switch {
	case stop == nil:
		stop = v.StopMs
	case v.StopMs != nil:
		stop = new(min(*stop, *v.StopMs+(eventLead+execHookSlack).Milliseconds()))
	}
	if endpoint == nil || stop == nil {
		return v.DeadlineMs
	}
	return max(*endpoint, *stop)
}

// raceSpan is when the race was being decided, from the termination's
// first sign (terminationStart) to when both its sides were known
// (decidedBy).
func raceSpan(tl *Timeline, v *Verdict) (from, to time.Time) {
	ms := func(d int64) time.Time { return tl.T0.Add(time.Duration(d) * time.Millisecond) }
	return ms(terminationStart(v)), ms(decidedBy(v))
}

// partialFinding says what was not seen, when nothing else was a risk:
// that is a risk of its own ("cannot tell", exit 2), never SAFE.
func partialFinding(v *Verdict, l *findingList) {
	if len(v.PartialStreams) == 0 {
		return
	}
	v.CannotTell = true
	l.risk("%s", fmt.Sprintf("cannot tell: the %s watch(es) were cut or stalled between the start of the termination and %+d ms, when the race was decided; what happened there was seen late or only as its net result, so whether the pod stopped receiving traffic before it stopped serving is not known", joinNames(v.PartialStreams), decidedBy(v)))
}
