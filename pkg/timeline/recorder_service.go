package timeline

import (
	"fmt"
	"maps"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
)

// sliceOthers is what one EndpointSlice says about the other pods of its
// Service: the keys (targetRef UID, else first address) of their ready
// endpoints.
type sliceOthers struct {
	service string
	ready   map[string]bool
}

// othersReadyIn returns the ready endpoints of slice that are not the pod
// uid's. An unset ready condition counts as ready, as the discovery/v1 API
// says consumers must read it.
func othersReadyIn(slice *discoveryv1.EndpointSlice, uid string) map[string]bool {
	ready := map[string]bool{}
	for _, ep := range slice.Endpoints {
		if ep.Conditions.Ready != nil && !*ep.Conditions.Ready {
			continue
		}
		key := ""
		switch {
		case ep.TargetRef != nil && string(ep.TargetRef.UID) == uid:
			continue
		case ep.TargetRef != nil && ep.TargetRef.UID != "":
			key = string(ep.TargetRef.UID)
		case len(ep.Addresses) > 0:
			key = ep.Addresses[0]
		default:
			continue
		}
		ready[key] = true
	}
	return ready
}

// servicesReady records, for each Service that selects the pod, a
// KindServiceEndpoints event the first time its count of other pods' ready
// endpoints is known and whenever that count reaches or leaves zero: at
// zero, kube-proxy falls back to the endpoints that are serving and
// terminating (pkg/proxy CategorizeEndpoints), so a terminating pod keeps
// receiving the Service's traffic until it stops serving. Nothing is
// recorded before the EndpointSlices were listed: a watch notification of
// one slice says nothing of the Service's other slices, and "no ready
// endpoint" from slices not yet seen would be a claim never checked.
func (r *Recorder) servicesReady(recv time.Time, initial bool) {
	if !r.slicesListed {
		return
	}
	for _, svc := range r.TL.Services {
		union := map[string]bool{}
		for _, so := range r.others {
			if so.service == svc {
				maps.Copy(union, so.ready)
			}
		}
		n := len(union)
		prev, known := r.othersReady[svc]
		r.othersReady[svc] = n
		if known && (prev == 0) == (n == 0) {
			continue
		}
		msg := fmt.Sprintf("Service %s: %d ready endpoint(s) of other pods", svc, n)
		if n == 0 {
			msg = fmt.Sprintf("Service %s: no ready endpoint of another pod (kube-proxy then sends its traffic to endpoints that are serving and terminating)", svc)
		}
		r.add(Event{Recv: recv, Track: ControlPlane, Kind: KindServiceEndpoints, Service: svc, OthersReady: &n, Initial: initial, Message: msg})
	}
}
