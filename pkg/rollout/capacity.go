package rollout

import (
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// CapacityTracker keeps the EndpointSlices of the Services that select the
// workload and counts, per Service, the endpoints that are ready and those
// serving while terminating. It records a sample each time a count or the
// desired replicas change. It does no I/O.
type CapacityTracker struct {
	desired int32
	// slices holds the last state of every slice, by name.
	slices map[string]*discoveryv1.EndpointSlice
	tracks map[string]*CapacityTrack
}

// DesiredReadyAtStart, given to NewCapacityTracker as desired, holds the
// counts against the ready endpoints of the first count (a watch whose
// target is the state it found, as a node drain's: no workload's desired
// replicas change).
const DesiredReadyAtStart int32 = -1

// NewCapacityTracker tracks services against desired endpoints.
func NewCapacityTracker(services []string, desired int32) *CapacityTracker {
	c := &CapacityTracker{desired: desired, slices: map[string]*discoveryv1.EndpointSlice{}, tracks: map[string]*CapacityTrack{}}
	for _, s := range services {
		c.tracks[s] = &CapacityTrack{Service: s}
	}
	return c
}

// Tracks returns the tracks in the order of the services given at start.
func (c *CapacityTracker) Tracks(services []string) []*CapacityTrack {
	out := make([]*CapacityTrack, 0, len(services))
	for _, s := range services {
		out = append(out, c.tracks[s])
	}
	return out
}

// Slice records one EndpointSlice notification and returns the samples it
// changed, one per Service at most.
func (c *CapacityTracker) Slice(recv time.Time, typ watch.EventType, s *discoveryv1.EndpointSlice) []ServiceSample {
	if typ == watch.Deleted {
		delete(c.slices, s.Name)
	} else {
		c.slices[s.Name] = s
	}
	return c.recount(recv, false, s.Labels[discoveryv1.LabelServiceName])
}

// List replaces every slice with a List's result (at start, or after a
// watch gap).
func (c *CapacityTracker) List(recv time.Time, items []*discoveryv1.EndpointSlice, initial bool) []ServiceSample {
	c.slices = map[string]*discoveryv1.EndpointSlice{}
	for _, s := range items {
		c.slices[s.Name] = s
	}
	return c.recount(recv, initial)
}

// setDesired records a new desired replica count for every Service.
func (c *CapacityTracker) setDesired(recv time.Time, desired int32) []ServiceSample {
	if desired == c.desired {
		return nil
	}
	c.desired = desired
	return c.recount(recv, false)
}

// ServiceSample is a new sample and the Service it is for.
type ServiceSample struct {
	Service string
	Sample  CapacitySample
}

// recount counts the endpoints of services (all when none is named) and
// records a sample where something changed.
func (c *CapacityTracker) recount(recv time.Time, initial bool, services ...string) []ServiceSample {
	if len(services) == 0 {
		for s := range c.tracks {
			services = append(services, s)
		}
	}
	var out []ServiceSample
	for _, svc := range services {
		tr, ok := c.tracks[svc]
		if !ok {
			continue
		}
		s := c.count(svc)
		if c.desired == DesiredReadyAtStart {
			c.desired = s.Ready
		}
		s.Recv, s.Desired, s.Initial = recv, c.desired, initial
		if n := len(tr.Samples); n > 0 {
			last := tr.Samples[n-1]
			if last.Ready == s.Ready && last.ServingTerminating == s.ServingTerminating && last.Desired == s.Desired {
				continue
			}
		}
		tr.Samples = append(tr.Samples, s)
		out = append(out, ServiceSample{svc, s})
	}
	return out
}

// count counts the Service's endpoints over all its slices, each pod once
// (during a rebalance the EndpointSlice controller can list an endpoint in
// two slices). Unset conditions take the discovery/v1 defaults: ready and
// serving true (serving follows ready), terminating false.
func (c *CapacityTracker) count(service string) CapacitySample {
	ready, serving := map[string]bool{}, map[string]bool{}
	for _, s := range c.slices {
		if s.Labels[discoveryv1.LabelServiceName] != service {
			continue
		}
		for _, ep := range s.Endpoints {
			key := endpointKey(ep)
			isReady := ep.Conditions.Ready == nil || *ep.Conditions.Ready
			isServing := isReady
			if ep.Conditions.Serving != nil {
				isServing = *ep.Conditions.Serving
			}
			terminating := ep.Conditions.Terminating != nil && *ep.Conditions.Terminating
			ready[key] = ready[key] || isReady
			serving[key] = serving[key] || (isServing && terminating)
		}
	}
	var out CapacitySample
	for key, r := range ready {
		if r {
			out.Ready++
		} else if serving[key] {
			out.ServingTerminating++
		}
	}
	return out
}

// endpointKey identifies an endpoint: its pod's UID, else its first address.
func endpointKey(ep discoveryv1.Endpoint) string {
	if ep.TargetRef != nil && ep.TargetRef.UID != "" {
		return string(ep.TargetRef.UID)
	}
	if len(ep.Addresses) > 0 {
		return ep.Addresses[0]
	}
	return ""
}
