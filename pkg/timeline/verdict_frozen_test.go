package timeline

import (
	"testing"

	"k8s.io/apimachinery/pkg/watch"
)

// The EndpointSlice controller never updates the slice (its API server was
// frozen, the controller manager restarting): the endpoint was seen ready
// and still was when the pod was gone. Traffic could reach the stopped
// pod: a risk, not "never in an EndpointSlice".
func TestVerdictEndpointStillReadyWhenPodGone(t *testing.T) {
	pod := testPod(30, sleepHook(5))
	r, del := deletedPod(pod)
	r.feedEvent(at(15000), kubeEvent("ev-kill", "Normal", "Killing", "Stopping container app", at(0)), false)
	r.feedPod(at(21000), watch.Modified, exited(del, 0, at(21000)))
	r.feedPod(at(21500), watch.Deleted, exited(del, 0, at(21000)))
	v := compute(r.TL)
	if !v.Risk || !hasFinding(v, "the endpoint was still ready in EndpointSlice web-abc when the pod was gone") {
		t.Errorf("risk %v, findings %v: want the endpoint still ready named as a risk", v.Risk, v.Findings)
	}
	if hasFinding(v, "not in any EndpointSlice") {
		t.Errorf("the verdict says the endpoint was in no EndpointSlice: %v", v.Findings)
	}
}
