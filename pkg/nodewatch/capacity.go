package nodewatch

import (
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-graceful/kubectl-graceful/internal/capacity"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// serviceCapacity is one Service's endpoint count, tracked by the rollout
// watch's own tracker. A drain does not change a workload's desired
// replicas, so the count is held against the ready endpoints the Service
// had when the watch first saw it ("ready at start").
type serviceCapacity struct {
	namespace, name string
	tracker         *capacity.Tracker
	track           *rollout.CapacityTrack
}

// trackService returns the Service's tracker, starting it from the
// EndpointSlices seen so far.
func (f *follower) trackService(ns, name string) *serviceCapacity {
	key := ns + "/" + name
	if c := f.capacity[key]; c != nil {
		return c
	}
	c := &serviceCapacity{namespace: ns, name: name, tracker: capacity.NewTracker([]string{name}, capacity.DesiredReadyAtStart),
		track: &rollout.CapacityTrack{Service: name}}
	f.capacity[key] = c
	// Without the EndpointSlices (forbidden) there is no count to start
	// from: no sample, rather than a "0 of 0" never read.
	if f.listed[timeline.StreamEndpointSlices] && !f.set.EndpointsUnseen {
		f.samples(c.tracker.List(time.Now(), f.slicesOf(c), true), c)
	}
	return c
}

// slicesOf returns the last state of the Service's EndpointSlices.
func (f *follower) slicesOf(c *serviceCapacity) []runtime.Object {
	var out []runtime.Object
	for _, s := range f.set.Slices() {
		if s.Namespace == c.namespace && s.Labels[discoveryv1.LabelServiceName] == c.name {
			out = append(out, s)
		}
	}
	return out
}

// samples records a Service's new counts on its track and prints them.
func (f *follower) samples(changes []capacity.Change, c *serviceCapacity) {
	for _, ch := range changes {
		s := rollout.CapacitySample(ch.Sample)
		c.track.Samples = append(c.track.Samples, s)
		if f.cfg.Printer.Capacity != nil {
			f.cfg.Printer.Capacity(f.w, c.namespace+"/"+c.name, s)
		}
	}
}
