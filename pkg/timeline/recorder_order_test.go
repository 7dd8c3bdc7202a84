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
	r.SliceList(at(-900), []discoveryv1.EndpointSlice{*readySlice("web-abc", "web")}, true)
	r.SliceEvent(at(10), watch.Modified, terminatingSlice("web-abc", "web"))
	r.PodEvent(at(12), watch.Modified, deleting(pod, at(0)))
	if !r.TL.T0.Equal(at(10)) || r.TL.T0Source != "deletion seen" {
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
