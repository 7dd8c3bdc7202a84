package podset

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// podNamed is web-1 renamed, with its own UID.
func podNamed(name string) *corev1.Pod {
	p := timelinetest.Pod(30, nil)
	p.Name, p.UID = name, types.UID("uid-"+name)
	return p
}

// The rollout's pods List can arrive before its EndpointSlices List (the
// watches are not ordered against each other). The pods' Recorders then
// start with no slice seen: no line may say the Service has "no ready
// endpoint of another pod", which nothing checked. The count comes with
// the slices' List, as the state found at start.
func TestNoEndpointClaimBeforeTheSlicesAreListed(t *testing.T) {
	var lines []string
	s := Set{Start: timelinetest.At(0), Services: func(*corev1.Pod) []string { return []string{"web"} },
		Emit: func(rec *timeline.Recorder, e timeline.Event) { lines = append(lines, rec.TL.Pod+": "+e.Message) }}
	pods := []runtime.Object{podNamed("web-a"), podNamed("web-b"), podNamed("web-c")}
	s.PodList(timelinetest.At(1), pods, true, nil)
	for _, l := range lines {
		if strings.Contains(l, "endpoint") {
			t.Errorf("before the EndpointSlices were listed: %q", l)
		}
	}
	ready := discoveryv1.EndpointConditions{Ready: timelinetest.Bool(true)}
	slice := timelinetest.PodsSlice("web-x", "web", map[string]discoveryv1.EndpointConditions{"uid-web-a": ready, "uid-web-b": ready, "uid-web-c": ready})
	s.SliceList(timelinetest.At(2), []runtime.Object{slice}, true)
	for _, rec := range s.Recorders() {
		var counts []int
		for _, e := range rec.TL.Events {
			if e.Kind == timeline.KindServiceEndpoints {
				counts = append(counts, *e.OthersReady)
				if !e.Initial || e.Message != "Service web: 2 ready endpoint(s) of other pods" {
					t.Errorf("%s: %q (initial %v)", rec.TL.Pod, e.Message, e.Initial)
				}
			}
		}
		if len(counts) != 1 || counts[0] != 2 {
			t.Errorf("%s: other pods' ready endpoints recorded %v, want [2] once; lines %q", rec.TL.Pod, counts, lines)
		}
	}
}

// A pod created once the slices are listed starts from them.
func TestPodAddedAfterTheSlicesStartsFromThem(t *testing.T) {
	s := Set{Start: timelinetest.At(0), Services: func(*corev1.Pod) []string { return []string{"web"} }}
	ready := discoveryv1.EndpointConditions{Ready: timelinetest.Bool(true)}
	s.SliceList(timelinetest.At(1), []runtime.Object{timelinetest.PodsSlice("web-x", "web", map[string]discoveryv1.EndpointConditions{"uid-web-a": ready})}, true)
	rec, _ := s.PodEvent(timelinetest.At(5), "ADDED", podNamed("web-b"))
	if n := len(rec.TL.Events); n != 1 || rec.TL.Events[0].OthersReady == nil || *rec.TL.Events[0].OthersReady != 1 {
		t.Errorf("events %+v, want one count of 1 other ready endpoint", rec.TL.Events)
	}
}

// A pod's Events delivered late stall its Recorder, and the watch that
// holds the Set is told (rollout and node watches print it as a STALL
// line, as watch pod does).
func TestSetPassesOnAPodsStall(t *testing.T) {
	var stalls []timeline.Gap
	s := Set{Start: timelinetest.At(0), Stall: func(g timeline.Gap) { stalls = append(stalls, g) }}
	s.PodList(timelinetest.At(1), []runtime.Object{timelinetest.Pod(30, timelinetest.SleepHook(5))}, true, nil)
	s.KubeEvent(timelinetest.At(3500), watch.Added, timelinetest.KubeEvent("k", "Normal", "Killing", "Stopping container app", timelinetest.At(0)))
	if len(stalls) != 1 || !stalls[0].Stalled || stalls[0].Stream != timeline.StreamEvents || !strings.Contains(stalls[0].Reason, "Killing arrived 3500 ms after") {
		t.Errorf("stalls %+v, want the Events watch's stall of Killing", stalls)
	}
}
