package rollout

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-graceful/kubectl-graceful/internal/timeline/podset"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// followerOf returns a follower of deployment "web" with n Ready pods
// listed, each an endpoint of one EndpointSlice of Service web, printing to
// out.
func followerOf(n int, out Printer) (*workloadFollower, *discoveryv1.EndpointSlice, []corev1.Pod) {
	sel, _ := labels.Parse("app=web")
	f := &workloadFollower{cfg: Config{Client: fake.NewClientset(), Workload: Workload{Kind: kindDeployment, Namespace: "shop", Name: "web"}, Printer: out},
		st: workloadState{selector: sel, desired: int32(n)}, everReady: map[types.UID]bool{}, listed: map[string]bool{}}
	f.r = &Rollout{Workload: f.cfg.Workload, Services: []string{"web"}, Start: time.Now(), T0: time.Now()}
	f.set = podset.Set{Start: f.r.Start, Services: func(*corev1.Pod) []string { return f.r.Services }, Emit: f.emitted}
	f.capacity = newServiceTracks(f.r.Services, int32(n))
	pods := make([]corev1.Pod, n)
	eps := map[string]discoveryv1.EndpointConditions{}
	var list []runtime.Object
	for i := range pods {
		p := timelinetest.Pod(30, timelinetest.SleepHook(5))
		p.Name, p.UID = fmt.Sprintf("web-%d", i), types.UID(fmt.Sprintf("uid-%d", i))
		pods[i] = *p
		eps[string(p.UID)] = discoveryv1.EndpointConditions{Ready: timelinetest.Bool(true), Serving: timelinetest.Bool(true), Terminating: timelinetest.Bool(false)}
		list = append(list, p)
	}
	slice := timelinetest.PodsSlice("web-abc", "web", eps)
	f.handle(context.Background(), listwatch.Notice{Stream: "pod", Kind: listwatch.KindList, Initial: true, Recv: time.Now(), List: list})
	f.handle(context.Background(), listwatch.Notice{Stream: "EndpointSlices", Kind: listwatch.KindList, Initial: true, Recv: time.Now(), List: []runtime.Object{slice}})
	return f, slice, pods
}

type rolloutSignal struct{ lines chan time.Time }

func (s rolloutSignal) PodEvent(*Rollout, *timeline.Timeline, timeline.Event) { s.lines <- time.Now() }
func (s rolloutSignal) Capacity(*Rollout, string, CapacitySample)             {}
func (s rolloutSignal) Status(*Rollout, StatusChange)                         {}
func (s rolloutSignal) Gap(*Rollout, timeline.Gap)                            {}
func (s rolloutSignal) Note(*Rollout, string)                                 {}

func (s rolloutSignal) printer() Printer {
	return Printer{PodEvent: s.PodEvent, Capacity: s.Capacity, Status: s.Status, Gap: s.Gap, Note: s.Note}
}

// BenchmarkRolloutOf200Pods measures the time from a notification reaching
// the follower of a 200-pod workload to its line: each iteration is an
// EndpointSlice update (200 endpoints, one of them flipping between ready
// and terminating), which every pod's recorder and the capacity tracker
// read. The p99-ms metric is the processing part of delivery-to-line.
func BenchmarkRolloutOf200Pods(b *testing.B) {
	lines := make(chan time.Time, 1024)
	f, slice, _ := followerOf(200, rolloutSignal{lines: lines}.printer())
	for len(lines) > 0 {
		<-lines
	}
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := slice.DeepCopy()
		ep := &s.Endpoints[0]
		ep.Conditions.Ready, ep.Conditions.Terminating = timelinetest.Bool(i%2 == 1), timelinetest.Bool(i%2 == 0)
		slice = s
		sent := time.Now()
		_ = f.handle(context.Background(), listwatch.Notice{Stream: "EndpointSlices", Recv: sent, Kind: listwatch.KindEvent, Event: &watch.Event{Type: watch.Modified, Object: s}})
		lat = append(lat, (<-lines).Sub(sent))
		for len(lines) > 0 {
			<-lines
		}
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// A workload of any size is followed with four watches: one per kind of
// object, none per pod.
func TestWorkloadWatchesIndependentOfReplicas(t *testing.T) {
	for _, n := range []int{1, 200} {
		f, _, _ := followerOf(n, rolloutSignal{lines: make(chan time.Time, 4*n+64)}.printer())
		if got := len(f.streams()); got != 4 || len(f.set.Recorders()) != n {
			t.Errorf("%d pods: %d watches, %d pods followed; want 4 watches", n, got, len(f.set.Recorders()))
		}
	}
}
