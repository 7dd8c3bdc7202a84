package timeline

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/watch"
)

func kinds(tl *Timeline) []Kind {
	var out []Kind
	for _, e := range tl.Events {
		out = append(out, e.Kind)
	}
	return out
}

func TestRecorderDeletionGivesRequestTimeAndGrace(t *testing.T) {
	pod := testPod(45, nil)
	r := NewRecorder(pod, nil, at(0))
	req := time.Date(2026, 11, 29, 7, 0, 3, 0, time.UTC)
	r.feedPod(at(100), watch.Modified, deleting(pod, req))
	tl := r.TL
	if tl.T0 != at(100) || tl.T0Source != "deletion-seen" {
		t.Errorf("T0 = %v (%s), want the deletion's receive time", tl.T0, tl.T0Source)
	}
	if !tl.RequestServer.Equal(req) || tl.GracePeriodSeconds != 45 {
		t.Errorf("request %v grace %d, want %v and 45", tl.RequestServer, tl.GracePeriodSeconds, req)
	}
	if got := kinds(tl); len(got) != 1 || got[0] != KindDeletionSeen {
		t.Errorf("events %v, want one DeletionSeen", got)
	}
}

func TestRecorderIgnoresOtherPodsAndRepeats(t *testing.T) {
	pod := testPod(30, nil)
	r := NewRecorder(pod, nil, at(0))
	other := testPod(30, nil)
	other.UID = "someone-else"
	r.feedPod(at(1), watch.Modified, deleting(other, at(0)))
	ev := kubeEvent("e1", "Warning", "Unhealthy", "Readiness probe failed", at(0))
	r.feedEvent(at(2), ev, false)
	r.feedEvent(at(3), ev, false) // a re-list returns the same count
	ev2 := ev.DeepCopy()
	ev2.Count = 2
	r.feedEvent(at(4), ev2, false)
	got := kinds(r.TL)
	if len(got) != 2 || got[0] != KindUnhealthy || got[1] != KindUnhealthy {
		t.Fatalf("events %v, want two Unhealthy (count 1 then 2)", got)
	}
	if r.TL.Events[1].Message != "Event Warning Unhealthy: Readiness probe failed (x2)" {
		t.Errorf("message %q", r.TL.Events[1].Message)
	}
}

func TestRecorderSeededEventsAreNotRepeated(t *testing.T) {
	r := NewRecorder(testPod(30, nil), nil, at(0))
	ev := kubeEvent("old", "Warning", "Unhealthy", "probe failed", at(-60000))
	r.seedEvent(ev)
	r.feedEvent(at(5), ev, false)
	if len(r.TL.Events) != 0 {
		t.Errorf("an Event that existed before the watch was recorded: %v", kinds(r.TL))
	}
}

func TestRecorderRelistFindsRemovedSliceAndGonePod(t *testing.T) {
	pod := testPod(30, nil)
	r := NewRecorder(pod, []string{"web"}, at(0))
	r.feedSlices(at(1), []discoveryv1.EndpointSlice{*readySlice("web-1", "web")}, true)
	r.feedSlices(at(500), nil, false)
	r.feedPods(at(501), []corev1.Pod{})
	got := kinds(r.TL)
	// The other pod's ready endpoint leaves with the slice: the Service has
	// none left.
	want := []Kind{KindEndpointAdded, KindServiceEndpoints, KindEndpointRemoved, KindServiceEndpoints, KindPodGone}
	if len(got) != len(want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("events %v, want %v", got, want)
		}
	}
	if n := r.TL.Events[3].OthersReady; n == nil || *n != 0 {
		t.Errorf("after the re-list the Service has %v other ready endpoints, want 0", n)
	}
	if !r.TL.Events[0].Initial || r.TL.Events[2].Initial {
		t.Errorf("only the first List's endpoint is initial")
	}
	if !r.gone {
		t.Error("a re-list without the pod did not mark it gone")
	}
}

func TestRecorderContainerExitAndConditions(t *testing.T) {
	pod := testPod(30, nil)
	r := NewRecorder(pod, nil, at(0))
	del := deleting(pod, at(0))
	del.Status.Conditions = append(del.Status.Conditions, corev1.PodCondition{Type: corev1.DisruptionTarget,
		Status: corev1.ConditionTrue, Reason: "EvictionByEvictionAPI", Message: "Eviction API: evicting"})
	r.feedPod(at(5), watch.Modified, del)
	r.feedPod(at(900), watch.Modified, exited(del, 137, at(900)))
	var exit, disruption *Event
	for i, e := range r.TL.Events {
		switch {
		case e.Kind == KindContainerExit:
			exit = &r.TL.Events[i]
		case e.Kind == KindCondition && e.Track == ControlPlane:
			disruption = &r.TL.Events[i]
		}
	}
	if disruption == nil || disruption.Message != "condition DisruptionTarget=True (EvictionByEvictionAPI): Eviction API: evicting" {
		t.Errorf("DisruptionTarget not recorded on the control plane track: %+v", disruption)
	}
	if exit == nil || *exit.ExitCode != 137 || exit.Container != "app" || exit.Track != Kubelet {
		t.Fatalf("exit not recorded: %+v", exit)
	}
}

func TestRecorderAlreadyTerminating(t *testing.T) {
	pod := deleting(testPod(30, nil), at(-4000))
	r := NewRecorder(pod, nil, at(0))
	if !r.TL.AlreadyTerminating || r.TL.T0 != at(0) {
		t.Fatalf("already terminating pod: AlreadyTerminating=%v T0=%v", r.TL.AlreadyTerminating, r.TL.T0)
	}
	r.MarkT0(at(50), T0DeleteSent, "DELETE sent")
	if r.TL.T0 != at(0) {
		t.Error("a second delete moved T0 of an already terminating pod")
	}
	if !r.TL.Events[0].Initial {
		t.Error("the deletion found at start is not marked as before the watch")
	}
}

func TestEndpointDefaults(t *testing.T) {
	s := slice("a", "svc", nil, nil, nil)
	s.Endpoints = []discoveryv1.Endpoint{{TargetRef: &corev1.ObjectReference{UID: podUID}}}
	got := endpointOf(s, podUID)
	if got == nil || *got != (EndpointState{Ready: true, Serving: true}) {
		t.Errorf("unset conditions = %+v, want ready and serving, not terminating", got)
	}
	if endpointOf(s, "other") != nil {
		t.Error("found an endpoint of another pod")
	}
}

// When Services cannot be listed, the Services come from the slices that
// hold the endpoint, so the verdict still knows the pod is behind one.
func TestRecorderLearnsServicesFromSlices(t *testing.T) {
	r := NewRecorder(testPod(30, nil), nil, at(0))
	r.feedSlices(at(1), []discoveryv1.EndpointSlice{*readySlice("web-1", "web"), *slice("other-1", "other", nil, nil, nil)}, true)
	if len(r.TL.Services) != 1 || r.TL.Services[0] != "web" {
		t.Errorf("services %v, want [web]", r.TL.Services)
	}
}

// The final delete with grace 0 once the pod is terminal does not shorten
// the grace period the verdict measures against; a user's shorter delete
// does.
func TestRecorderFinalDeleteKeepsGrace(t *testing.T) {
	pod := testPod(30, nil)
	r := NewRecorder(pod, nil, at(0))
	del := deleting(pod, at(0))
	r.feedPod(at(5), watch.Modified, del)
	done := exited(del, 0, at(900))
	zero := int64(0)
	done.DeletionGracePeriodSeconds = &zero
	r.feedPod(at(950), watch.Modified, done)
	if r.TL.GracePeriodSeconds != 30 {
		t.Errorf("grace %d after the final delete, want 30", r.TL.GracePeriodSeconds)
	}
	shorter := del.DeepCopy()
	ten := int64(10)
	shorter.DeletionGracePeriodSeconds = &ten
	r2 := NewRecorder(pod, nil, at(0))
	r2.feedPod(at(5), watch.Modified, del)
	r2.feedPod(at(100), watch.Modified, shorter)
	if r2.TL.GracePeriodSeconds != 10 {
		t.Errorf("grace %d after a shorter delete, want 10", r2.TL.GracePeriodSeconds)
	}
}

// A notification of one EndpointSlice before any List says nothing of the
// Service's other slices: the pod's own endpoint is recorded, no count of
// the other pods' ready endpoints until the List.
func TestRecorderClaimsNoCountBeforeTheSlicesList(t *testing.T) {
	r := NewRecorder(testPod(30, nil), []string{"web"}, at(0))
	r.feedSlice(at(1), watch.Modified, readySlice("web-1", "web"))
	if r.TL.HasKind(KindServiceEndpoints) || !r.TL.HasKind(KindEndpointAdded) {
		t.Fatalf("before the List: %v, want the endpoint and no count", kinds(r.TL))
	}
	r.feedSlices(at(2), []discoveryv1.EndpointSlice{*readySlice("web-1", "web")}, true)
	if !r.TL.HasKind(KindServiceEndpoints) {
		t.Errorf("no count after the List: %v", kinds(r.TL))
	}
}
