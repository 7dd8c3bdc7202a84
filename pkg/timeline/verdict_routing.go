package timeline

import "sort"

// routing is when kube-proxy stopped sending the pod traffic.
type routing struct {
	// readyOut is the last moment the endpoint went from "ready in some
	// slice" to "ready in none", provided it stayed out.
	readyOut *int64
	// out is the last moment the pod went from routed to not routed,
	// provided it stayed so (see routed).
	out *int64
	// outByOthers is true when out came from another pod's endpoint
	// turning ready rather than from this pod ceasing to serve.
	outByOthers bool
	// fallback lists the Services that had no other ready endpoint while
	// this pod's endpoint was serving and terminating, by first time seen.
	fallback []fallbackSpan
	// readyAtEnd names the EndpointSlice in which the endpoint was still
	// ready after the last change seen ("" when it was ready in none).
	readyAtEnd string
}

type fallbackSpan struct {
	service string
	fromMs  int64
	// backMs is when another pod's endpoint of the Service was first seen
	// ready after fromMs; nil when none was while watched.
	backMs *int64
}

// routed reports whether kube-proxy sends the pod traffic: its endpoint is
// ready in some slice, or it is serving and terminating in a slice of a
// Service that has no ready endpoint of another pod (kube-proxy's fallback
// to terminating endpoints, pkg/proxy CategorizeEndpoints, since the
// ProxyTerminatingEndpoints feature went GA in 1.28). A Service whose count
// of other ready endpoints was never seen is taken to have some.
func routed(slices map[string]sliceEndpoint, others map[string]int) (ready, routed bool) {
	for _, s := range slices {
		if s.state.Ready {
			return true, true
		}
	}
	for _, s := range slices {
		if n, known := others[s.service]; known && n == 0 && s.state.Serving && s.state.Terminating {
			return false, true
		}
	}
	return false, false
}

// firstReadySlice returns the first slice (by name) in which the endpoint is ready.
func firstReadySlice(slices map[string]sliceEndpoint) string {
	first := ""
	for name, s := range slices {
		if s.state.Ready && (first == "" || name < first) {
			first = name
		}
	}
	return first
}

// routingOf walks the endpoint changes in receive order. An endpoint that
// was never ready while watched gives no out time.
func routingOf(tl *Timeline, evs []Event) routing {
	var rt routing
	slices := map[string]sliceEndpoint{}
	others := map[string]int{}
	fallbackFrom, backAt := map[string]int64{}, map[string]int64{}
	wasReady, wasRouted := false, false
	for i, e := range evs {
		switch e.Kind {
		case KindEndpointAdded, KindEndpointChanged:
			slices[e.Slice] = sliceEndpoint{service: e.Service, state: *e.Endpoint}
		case KindEndpointRemoved:
			delete(slices, e.Slice)
		case KindServiceEndpoints:
			others[e.Service] = *e.OthersReady
		default:
			continue
		}
		if sameUpdateFollows(evs, i) {
			continue // judge once the whole EndpointSlice update is applied
		}
		ms, _ := tl.Ms(e.Recv)
		for svc := range fallbackFrom {
			if _, seen := backAt[svc]; !seen && others[svc] > 0 {
				backAt[svc] = ms
			}
		}
		ready, isRouted := routed(slices, others)
		if isRouted && !ready {
			for _, s := range slices {
				n, known := others[s.service]
				if _, seen := fallbackFrom[s.service]; !seen && known && n == 0 && s.state.Serving && s.state.Terminating {
					fallbackFrom[s.service] = ms
				}
			}
		}
		switch {
		case wasReady && !ready:
			rt.readyOut = new(ms)
		case ready:
			rt.readyOut = nil
		}
		switch {
		case wasRouted && !isRouted:
			rt.out, rt.outByOthers = new(ms), e.Kind == KindServiceEndpoints
		case isRouted:
			rt.out = nil
		}
		wasReady, wasRouted = ready, isRouted
	}
	if wasReady {
		rt.readyAtEnd = firstReadySlice(slices)
	}
	for svc, ms := range fallbackFrom {
		f := fallbackSpan{service: svc, fromMs: ms}
		if b, ok := backAt[svc]; ok {
			f.backMs = new(b)
		}
		rt.fallback = append(rt.fallback, f)
	}
	sort.Slice(rt.fallback, func(i, j int) bool { return rt.fallback[i].service < rt.fallback[j].service })
	return rt
}

// sameUpdateFollows reports whether another endpoint change of the same
// EndpointSlice update comes after evs[i]: the recorder files one update
// as several events with one receive time (this pod's endpoint, then the
// count of other pods' ready endpoints). Judged one by one they would show
// a moment that never existed, such as a Service without a ready endpoint
// in the update that both made this pod terminating and a replacement
// ready.
func sameUpdateFollows(evs []Event, i int) bool {
	for j := i + 1; j < len(evs) && evs[j].Recv.Equal(evs[i].Recv); j++ {
		switch evs[j].Kind {
		case KindEndpointAdded, KindEndpointChanged, KindEndpointRemoved, KindServiceEndpoints:
			return true
		}
	}
	return false
}
