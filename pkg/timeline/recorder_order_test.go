package timeline

import (
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// When someone else deletes the pod, its endpoint may be seen terminating
// on the EndpointSlice watch before the pod watch delivers the deletion:
// the clock starts at that first sign, so every later change has its
// milliseconds and none is dated before the deletion.
func TestRecorderEndpointTerminatingBeforeDeletionSeen(t *testing.T) {
	pod := testPod(30, sleepHook(5))
	r := NewRecorder(pod, []string{"web"}, at(-1000))
	r.feedSlices(at(-900), []discoveryv1.EndpointSlice{*readySlice("web-abc", "web")}, true)
	r.feedSlice(at(10), watch.Modified, terminatingSlice("web-abc", "web"))
	r.feedPod(at(12), watch.Modified, deleting(pod, at(0)))
	if !r.TL.T0.Equal(at(10)) || r.TL.T0Source != "deletion-seen" {
		t.Fatalf("T0 %v (%q), want the terminating endpoint's +10 ms, deletion seen", r.TL.T0.Sub(at(0)), r.TL.T0Source)
	}
	for _, e := range r.TL.Events {
		if e.Initial {
			continue
		}
		if ms, ok := r.TL.Ms(e.Recv); !ok || ms < 0 {
			t.Errorf("%s at %d ms (%t): before the clock's start", e.Kind, ms, ok)
		}
	}
}

// One EndpointSlice update that both makes this pod's endpoint terminating
// and a replacement's ready leaves no moment without a ready endpoint: the
// verdict must not claim kube-proxy's fallback to terminating endpoints.
func TestVerdictReplacementReadyInTheSameUpdate(t *testing.T) {
	pod := testPod(30, nil)
	r := NewRecorder(pod, []string{"web"}, at(-1000))
	r.feedSlices(at(-900), []discoveryv1.EndpointSlice{*lonelySlice("web-abc", "web", boolp(true), boolp(true), boolp(false))}, true)
	r.MarkT0(at(0), T0DeleteSent, "DELETE sent")
	r.feedPod(at(5), watch.Modified, deleting(pod, at(0)))
	r.feedSlice(at(47), watch.Modified, terminatingSlice("web-abc", "web"))
	v := compute(r.TL)
	if len(v.NoReadyEndpoint) != 0 || hasFinding(v, "had no ready endpoint") {
		t.Errorf("fallback claimed for a Service that never lacked a ready endpoint: %v", v.Findings)
	}
	if v.EndpointOutMs == nil || *v.EndpointOutMs != 47 || v.ReadyOutMs == nil || *v.ReadyOutMs != 47 {
		t.Errorf("endpoint out %v, ready out %v: want both at the update, +47 ms", v.EndpointOutMs, v.ReadyOutMs)
	}
}
