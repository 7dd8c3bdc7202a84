package capacity

import (
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// endpoints returns a slice of service with one endpoint per state, for
// pods named by uid.
func endpoints(name, service string, eps map[string]timeline.EndpointState) *discoveryv1.EndpointSlice {
	conds := map[string]discoveryv1.EndpointConditions{}
	for uid, st := range eps {
		conds[uid] = discoveryv1.EndpointConditions{Ready: timelinetest.Bool(st.Ready), Serving: timelinetest.Bool(st.Serving), Terminating: timelinetest.Bool(st.Terminating)}
	}
	return timelinetest.PodsSlice(name, service, conds)
}

var (
	epReady       = timeline.EndpointState{Ready: true, Serving: true}
	epTerminating = timeline.EndpointState{Serving: true, Terminating: true}
	epGoing       = timeline.EndpointState{Terminating: true}
)

func TestCapacityCountsEachPodOnceAndServingTerminating(t *testing.T) {
	c := NewTracker([]string{"web", "web-canary"}, 3)
	got := c.List(timelinetest.At(0), []runtime.Object{
		endpoints("web-a", "web", map[string]timeline.EndpointState{"1": epReady, "2": epReady}),
		// the same pod in a second slice during a rebalance counts once
		endpoints("web-b", "web", map[string]timeline.EndpointState{"2": epReady, "3": epTerminating}),
	}, true)
	if len(got) != 2 {
		t.Fatalf("samples %+v, want one per Service", got)
	}
	for _, s := range got {
		want := Sample{Recv: timelinetest.At(0), Ready: 2, ServingTerminating: 1, Desired: 3, Initial: true}
		if s.Service == "web-canary" {
			want.Ready, want.ServingTerminating = 0, 0
		}
		if s.Sample != want {
			t.Errorf("%s: %+v, want %+v", s.Service, s.Sample, want)
		}
	}
	got = c.Slice(timelinetest.At(10), watch.Modified, endpoints("web-b", "web", map[string]timeline.EndpointState{"2": epReady, "3": epGoing}))
	if len(got) != 1 || got[0].Sample.Ready != 2 || got[0].Sample.ServingTerminating != 0 {
		t.Errorf("after the endpoint stopped serving: %+v", got)
	}
	if again := c.Slice(timelinetest.At(20), watch.Modified, endpoints("web-b", "web", map[string]timeline.EndpointState{"2": epReady, "3": epGoing})); len(again) != 0 {
		t.Errorf("an unchanged count gave samples %+v", again)
	}
	if d := c.SetDesired(timelinetest.At(30), 1); len(d) != 2 || d[0].Sample.Desired != 1 {
		t.Errorf("desired change: %+v", d)
	}
}

// A new desired count read before the EndpointSlices were listed gives no
// sample: "0 ready" would be a count of slices not yet seen.
func TestNoSampleBeforeTheFirstList(t *testing.T) {
	c := NewTracker([]string{"web"}, 3)
	if got := c.SetDesired(timelinetest.At(0), 4); len(got) != 0 {
		t.Fatalf("samples before the List: %+v", got)
	}
	got := c.List(timelinetest.At(1), []runtime.Object{endpoints("web-a", "web", map[string]timeline.EndpointState{"1": epReady})}, true)
	if len(got) != 1 || got[0].Sample.Ready != 1 || got[0].Sample.Desired != 4 || !got[0].Sample.Initial {
		t.Errorf("first List: %+v, want 1 ready of 4 desired, initial", got)
	}
}
