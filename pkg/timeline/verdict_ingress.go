package timeline

import (
	"fmt"
	"slices"

	"github.com/kubectl-graceful/kubectl-graceful/internal/ingress"
)

// ingressTrack is what the ingress track showed: when the Ingress
// controller stopped picking the pod for new requests for good (out, ms
// since T0: the last change from "its server serving, unfenced, in some
// service" to "in none"), and whether it still was at the end.
type ingressTrack struct {
	out          *int64
	seen         bool
	servingAtEnd bool
}

func ingressTrackOf(tl *Timeline, evs []Event) ingressTrack {
	var t ingressTrack
	serving := map[string]bool{}
	was := false
	for _, e := range evs {
		switch e.Kind {
		case KindIngressAdded:
			serving[e.Service] = true
		case KindIngressFenced, KindIngressRemoved:
			delete(serving, e.Service)
		default:
			continue
		}
		t.seen = true
		now := len(serving) > 0
		if was && !now {
			ms, _ := tl.Ms(e.Recv)
			t.out = new(ms)
		}
		if now {
			t.out = nil
		}
		was = now
	}
	t.servingAtEnd = was
	return t
}

// ingressFindings judges the pod's stop against the moment the Ingress
// controller stopped sending it new requests, read from its API
// (Timeline.IngressAPI) every ingress.Poll: the change happened up to that
// much before it was seen, so an order closer than that cannot be told.
func ingressFindings(tl *Timeline, evs []Event, v *Verdict, l *findingList) {
	if tl.IngressAPI == "" || tl.IngressUnseen || tl.AlreadyTerminating {
		return
	}
	t := ingressTrackOf(tl, evs)
	v.IngressOutMs = t.out
	switch {
	case !t.seen:
		l.fact("the Ingress controller at %s had no server at the pod's address while watched: traffic through it did not reach this pod", tl.IngressAPI)
		return
	case t.servingAtEnd && tl.HasKind(KindPodGone):
		l.risk("the Ingress controller still picked the pod's server for new requests when the pod was gone (%s): requests through it fail (502) until it learns of the change", tl.IngressAPI)
		return
	case t.out == nil:
		return
	}
	out := *t.out
	stop, what := v.StopMs, tl.signalOf(v.StopContainer)
	lo, hi := int64(0), int64(0)
	switch {
	case stop != nil:
		lo, hi = *stop, *stop
		if v.SigtermEarliestMs != nil {
			lo, hi = *v.SigtermEarliestMs, *v.SigtermLatestMs
		}
	case len(v.Exits) > 0:
		lo, hi, what = v.Exits[0].Ms, v.Exits[0].Ms, "the exit of container "+v.Exits[0].Container
	default:
		l.fact("the Ingress controller stopped sending the pod new requests at %+d ms (read from its API)", out)
		return
	}
	poll := ingress.Poll.Milliseconds()
	v.IngressWindowMs = new(lo - out)
	cut := slices.Contains(v.PartialStreams, ingress.StreamName)
	switch {
	case hi < out-poll && cut:
		l.fact("cannot tell whether %s (by %+d ms) came before the Ingress controller stopped sending the pod new requests: its API showed that at %+d ms, but it could not be read for a while before (a gap)", what, hi, out)
	case hi < out-poll:
		v.Window = WindowRace
		l.risk("race with the Ingress controller: %s came by %+d ms, at least %d ms before it stopped sending the pod new requests (fenced or removed at %+d ms in its API): requests through it meanwhile get 502", what, hi, out-hi, out)
	case lo >= out:
		l.fact("the Ingress controller stopped sending the pod new requests at %+d ms (its API), %d ms before %s", out, lo-out, what)
	default:
		estimate := ""
		if stop != nil && *stop < out-poll {
			estimate = fmt.Sprintf("; the estimate (%+d ms) is %d ms before it, which would be a race with the proxy", *stop, out-*stop)
		}
		l.fact("cannot tell whether %s (%+d to %+d ms) came before the Ingress controller stopped sending the pod new requests: its API showed that at %+d ms, read every %d ms%s", what, lo, hi, out, poll, estimate)
	}
}
