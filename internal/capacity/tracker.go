// Package capacity counts the endpoints of Services from their
// EndpointSlices, as the rollout and node watches track them: per
// Service, the endpoints that are ready and those serving while
// terminating. It is the plugin's own: pkg/rollout keeps the samples
// (rollout.CapacityTrack) that other programs read.
package capacity

import (
	"maps"
	"slices"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
)

// Tracker keeps the EndpointSlices of the Services that select the
// workload and counts, per Service, the endpoints that are ready and those
// serving while terminating. It records a sample each time a count or the
// desired replicas change. It does no I/O.
type Tracker struct {
	desired int32
	// slices holds the last state of every slice, by name.
	slices map[string]*discoveryv1.EndpointSlice
	// last holds each tracked Service's last sample, nil before the first.
	last map[string]*Sample
	// listed is set by the first List: before it the slices are unknown,
	// not empty, and no count is given.
	listed bool
}

// DesiredReadyAtStart, given to NewTracker as desired, holds the
// counts against the ready endpoints of the first count (a watch whose
// target is the state it found, as a node drain's: no workload's desired
// replicas change).
const DesiredReadyAtStart int32 = -1

// NewTracker tracks services against desired endpoints.
func NewTracker(services []string, desired int32) *Tracker {
	c := &Tracker{desired: desired, slices: map[string]*discoveryv1.EndpointSlice{}, last: map[string]*Sample{}}
	for _, s := range services {
		c.last[s] = nil
	}
	return c
}

// Slice records one EndpointSlice notification and returns the samples it
// changed, one per Service at most.
func (c *Tracker) Slice(recv time.Time, typ watch.EventType, s *discoveryv1.EndpointSlice) []Change {
	if typ == watch.Deleted {
		delete(c.slices, s.Name)
	} else {
		c.slices[s.Name] = s
	}
	return c.recount(recv, false, s.Labels[discoveryv1.LabelServiceName])
}

// List replaces every slice with the EndpointSlices among a List's objects
// (a listwatch.Notice's, at start or after a watch gap).
func (c *Tracker) List(recv time.Time, items []runtime.Object, initial bool) []Change {
	c.listed = true
	c.slices = map[string]*discoveryv1.EndpointSlice{}
	for _, o := range items {
		if s, ok := o.(*discoveryv1.EndpointSlice); ok {
			c.slices[s.Name] = s
		}
	}
	return c.recount(recv, initial)
}

// SetDesired records a new desired replica count for every Service.
func (c *Tracker) SetDesired(recv time.Time, desired int32) []Change {
	if desired == c.desired {
		return nil
	}
	c.desired = desired
	return c.recount(recv, false)
}

// Sample is a Service's endpoint count at one moment, the fields of
// rollout.CapacitySample (which it converts to): the endpoints of its
// EndpointSlices (each pod counted once, whichever slice holds it) that
// are ready, those still serving while terminating, and the workload's
// desired replicas at that moment.
type Sample struct {
	Recv               time.Time
	Ready              int32
	ServingTerminating int32
	Desired            int32
	// Initial marks the state found when the watch started.
	Initial bool
}

// Change is a new sample and the Service it is for.
type Change struct {
	Service string
	Sample  Sample
}

// recount counts the endpoints of services (all when none is named) and
// records a sample where something changed; none before the first List
// (a new desired count read before it would show "0 ready" never seen).
func (c *Tracker) recount(recv time.Time, initial bool, services ...string) []Change {
	if !c.listed {
		return nil
	}
	if len(services) == 0 {
		services = slices.Collect(maps.Keys(c.last))
	}
	var out []Change
	for _, svc := range services {
		last, ok := c.last[svc]
		if !ok {
			continue
		}
		s := c.count(svc)
		if c.desired == DesiredReadyAtStart {
			c.desired = s.Ready
		}
		s.Recv, s.Desired, s.Initial = recv, c.desired, initial
		if last != nil && last.Ready == s.Ready && last.ServingTerminating == s.ServingTerminating && last.Desired == s.Desired {
			continue
		}
		c.last[svc] = &s
		out = append(out, Change{svc, s})
	}
	return out
}

// count counts the Service's endpoints over all its slices, each pod once
// (during a rebalance the EndpointSlice controller can list an endpoint in
// two slices). Unset conditions take the discovery/v1 defaults: ready and
// serving true (serving follows ready), terminating false.
func (c *Tracker) count(service string) Sample {
	ready, serving := map[string]bool{}, map[string]bool{}
	for _, s := range c.slices {
		if s.Labels[discoveryv1.LabelServiceName] != service {
			continue
		}
		for _, ep := range s.Endpoints {
			key := endpointKey(ep)
			isReady := ptr.Deref(ep.Conditions.Ready, true)
			isServing := ptr.Deref(ep.Conditions.Serving, isReady)
			terminating := ptr.Deref(ep.Conditions.Terminating, false)
			ready[key] = ready[key] || isReady
			serving[key] = serving[key] || (isServing && terminating)
		}
	}
	var out Sample
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
