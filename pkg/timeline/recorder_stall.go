package timeline

import (
	"fmt"
	"time"
)

// stallThreshold is how much later than the server's own time for a change
// its notification may arrive before the watch counts as stalled. The
// server's times are whole seconds (deletionTimestamp, an Event's
// lastTimestamp) and so up to 1 s earlier than the change: 2 s leaves at
// least 1 s of real delay.
const stallThreshold = 2 * time.Second

// skewTolerance is how far a server time may lie after the receive time
// before the clocks are taken to disagree (network and rounding aside, a
// change cannot arrive before it happened).
const skewTolerance = time.Second

// stallStream returns the watch that delivers events of kind k when the
// event's Server time is the time of the change itself, "" otherwise:
// conditions keep their last transition time across reason changes,
// finishedAt is the node's clock, and a shortened grace period moves the
// deadline to the first request plus the new period (apiserver
// rest.BeforeDelete), which dates neither request.
func stallStream(k Kind) string {
	switch k {
	case KindDeletionSeen:
		return "pod"
	case KindKilling, KindPreStopFailed, KindUnhealthy, KindExceededGrace, KindOtherEvent:
		return "Events"
	}
	return ""
}

// lateness returns how long after the change e arrived. A deletion this
// command requested is timed from its own request on the monotonic clock;
// anything else from the server's time (or the later time the server
// stored it), on the wall clocks, which NTP keeps within well under a
// second of each other.
func (r *Recorder) lateness(e Event) time.Duration {
	tl := r.TL
	if e.Kind == KindDeletionSeen && (tl.T0Source == T0DeleteSent || tl.T0Source == T0EvictionAccepted) {
		return e.Recv.Sub(tl.T0)
	}
	return min(e.Recv.Sub(e.Server), e.Recv.Sub(e.stored)) // from the later of the two
}

// checkStall marks a stall when e arrived more than stallThreshold after
// the server's time for it while its watch was connected: the watch was
// slow, not cut, and the times of the changes around it are late too. A
// change inside a gap is already explained by the gap.
func (r *Recorder) checkStall(e Event) {
	stream := stallStream(e.Kind)
	if stream == "" || e.Server.IsZero() || e.Initial || r.clockSkewed {
		return
	}
	late := r.lateness(e)
	if late < -skewTolerance {
		r.clockSkewed = true
		r.note(fmt.Sprintf("%s arrived %d ms before the server's time for it: this machine's clock and the cluster's disagree, stalls in the watch are not judged", e.Kind.name(), -late.Milliseconds()))
		return
	}
	if late <= stallThreshold {
		return
	}
	from := e.Recv.Add(-late)
	if r.inGap(stream, from, e.Recv) {
		return
	}
	g := Gap{Stream: stream, From: from, To: e.Recv, Stalled: true,
		Reason: fmt.Sprintf("%s arrived %d ms after the server's time for it", e.Kind.name(), late.Milliseconds())}
	if last := r.lastStall(stream); last != nil && !last.To.Before(from) {
		last.To = e.Recv
		return
	}
	r.TL.Gaps = append(r.TL.Gaps, g)
	if r.Stall != nil {
		r.Stall(g)
	}
}

// inGap reports whether a gap (a cut, not a stall) of stream overlaps
// [from, to].
func (r *Recorder) inGap(stream string, from, to time.Time) bool {
	for _, g := range r.TL.Gaps {
		if g.Stream != stream || g.Stalled || g.From.After(to) {
			continue
		}
		if g.To.IsZero() || !g.To.Before(from) {
			return true
		}
	}
	return false
}

// lastStall returns the stream's latest stall, for merging a burst of late
// changes into one.
func (r *Recorder) lastStall(stream string) *Gap {
	for i := len(r.TL.Gaps) - 1; i >= 0; i-- {
		if g := &r.TL.Gaps[i]; g.Stream == stream && g.Stalled {
			return g
		}
	}
	return nil
}
