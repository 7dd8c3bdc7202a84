package timeline

import (
	"slices"
	"time"
)

// gapDoubt is what a verdict cannot claim from late stamps: the facts of
// the termination that arrived stamped by a gap (stampGap), and the
// watches that delivered them.
type gapDoubt struct {
	facts, streams []string
}

// stampGap returns the gap e's stamp lies in: e arrived on its watch while
// the watch was cut or stalled, or within gapSlack after it resumed
// (a resumed watch replays what it missed at once; a re-list gives only the
// net result). Such an e happened somewhere between the gap's start and
// its arrival; its receive time is no time of the change. This command's
// own requests are stamped when sent, never by a gap.
func stampGap(tl *Timeline, e Event) (Gap, bool) {
	if e.Initial || e.Kind == KindDeleteSent || e.Kind == KindEvictionRefused {
		return Gap{}, false
	}
	s := streamOf(e)
	for _, g := range tl.Gaps {
		if g.Stream == s && !e.Recv.Before(g.From) && (g.To.IsZero() || !e.Recv.After(g.To.Add(gapSlack))) {
			return g, true
		}
	}
	return Gap{}, false
}

// stampedFrom returns the earliest time a gap-stamped e can have
// happened: the start of its gap, or of the first of the cuts its watch
// went through with nothing delivered between them (a watch whose
// reconnection fails again opens gap after gap; what it replays at last
// may have happened in any of them).
func stampedFrom(tl *Timeline, e Event) (time.Time, bool) {
	g, ok := stampGap(tl, e)
	if !ok {
		return time.Time{}, false
	}
	from := g.From
	for again := true; again; {
		again = false
		for _, h := range tl.Gaps {
			if h.Stream == g.Stream && !h.Stalled && !h.To.IsZero() && h.From.Before(from) && !h.To.After(from) &&
				!deliveredIn(tl, g.Stream, h.To, from) {
				from, again = h.From, true
			}
		}
	}
	return from, true
}

// deliveredIn reports whether stream delivered a change after from and
// before to.
func deliveredIn(tl *Timeline, stream string, from, to time.Time) bool {
	return slices.ContainsFunc(tl.Events, func(e Event) bool {
		return streamOf(e) == stream && e.Recv.After(from) && e.Recv.Before(to)
	})
}

// stampedIn reports whether a gap of stream stamped a change that arrived
// between from and to: a gap wholly before the stretch that decides the
// race can still have hidden it, when what it hid arrived inside the
// stretch.
func stampedIn(tl *Timeline, stream string, from, to time.Time) bool {
	return slices.ContainsFunc(tl.Events, func(e Event) bool {
		_, ok := stampGap(tl, e)
		return ok && streamOf(e) == stream && !e.Recv.Before(from) && !e.Recv.After(to)
	})
}

// raceFacts are the kinds of change the window is judged on: when the
// request was seen, when SIGTERM came (Killing, a failed hook, an exit
// bounding it), when the pod left the traffic.
var raceFacts = map[Kind]bool{
	KindDeletionSeen: true, KindKilling: true, KindPreStopFailed: true, KindContainerExit: true, KindPodGone: true,
	KindEndpointChanged: true, KindEndpointRemoved: true, KindServiceEndpoints: true,
}

// gapDoubtOf returns the facts of the race (raceFacts arrived from the
// termination's first sign to when the race was decided) that a gap
// stamped, nil when none.
func gapDoubtOf(tl *Timeline, v *Verdict) *gapDoubt {
	if tl.T0.IsZero() {
		return nil
	}
	from, to := raceSpan(tl, v)
	var d gapDoubt
	for _, e := range sortedEvents(tl) {
		if _, ok := stampGap(tl, e); !ok || !raceFacts[e.Kind] || e.Recv.Before(from) || e.Recv.After(to) {
			continue
		}
		if n := e.Kind.name(); !slices.Contains(d.facts, n) {
			d.facts = append(d.facts, n)
		}
		d.streams = append(d.streams, streamOf(e))
	}
	if len(d.facts) == 0 {
		return nil
	}
	slices.Sort(d.streams)
	d.streams = slices.Compact(d.streams)
	return &d
}

// holdsAcrossGap reports whether the window's judgement stays the same
// wherever in their gaps the gap-stamped facts happened. The window is the
// stop minus the traffic end, so its extremes are each side's stamped
// facts moved to their gap's start with the other side's kept late: the
// endpoint's (EndpointSlices), then the pod's and the kubelet's (pod and
// Events watches, T0 with them when it is a deletion seen late).
func holdsAcrossGap(tl *Timeline, o Options, v Verdict) bool {
	for _, endpointSide := range []bool{true, false} {
		if judge(earliest(tl, endpointSide), o, nil).Window != v.Window {
			return false
		}
	}
	return true
}

// earliest returns a copy of tl in which the gap-stamped events of one
// side (the EndpointSlices watch, or the others) happened at their gap's
// start (stampedFrom), the earliest they can have; no sooner than this command's own
// delete or eviction, which the termination follows.
func earliest(tl *Timeline, endpointSide bool) *Timeline {
	c := *tl
	c.Events = slices.Clone(tl.Events)
	own := tl.T0Source == T0DeleteSent || tl.T0Source == T0EvictionAccepted
	for i, e := range c.Events {
		at, ok := stampedFrom(tl, e)
		if !ok || (streamOf(e) == StreamEndpointSlices) != endpointSide {
			continue
		}
		if own && at.Before(tl.T0) {
			at = tl.T0
		}
		if e.Recv.Equal(tl.T0) && tl.T0Source == T0DeletionSeen {
			c.T0 = at
		}
		c.Events[i].Recv = at
	}
	return &c
}

// doubtFinding says that the window was not judged: the facts it rests on
// arrived stamped by a gap. A risk ("cannot tell", exit 2), never SAFE and
// never a race drawn from arrival times.
func doubtFinding(v *Verdict, l *findingList) {
	v.CannotTell, v.Window, v.ShortByMs = true, "", nil
	l.risk("cannot tell: %s fell in a gap of the %s watch(es) (cut or stalled): they happened somewhere between the gap's start and their late arrival, and where decides the race, so whether the pod stopped receiving traffic before it was told to stop is not known",
		joinNames(v.doubt.facts), joinNames(v.doubt.streams))
}
