package timeline

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/kubectl-graceful/kubectl-graceful/internal/callback"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/probe"
)

// lineSignal is a writer that reports the time each line was written.
type lineSignal chan time.Time

func (l lineSignal) Write(p []byte) (int, error) {
	l <- time.Now()
	return len(p), nil
}

// signalPrinter is a Printer writing one line per event to a lineSignal.
// The line renderer lives in pkg/timeline/render, which imports this
// package, so the benchmark cannot use it; formatting a line costs
// microseconds, not the milliseconds measured here.
type signalPrinter struct{ w lineSignal }

func (p signalPrinter) Event(_ *Timeline, e Event) { _, _ = p.w.Write([]byte(e.Message + "\n")) }
func (p signalPrinter) Gap(*Timeline, Gap)         {}
func (p signalPrinter) Note(*Timeline, string)     {}

// BenchmarkDeliveryToLine measures, for each watch notification, the time
// from the watch delivering it (the fake watcher's send) to its line being
// written, through the whole path: RetryWatcher, the gap-marking wrapper,
// the follower, the Recorder and a printer writing the line. The target is under
// 100 ms; the p99-ms and max-ms metrics report it.
func BenchmarkDeliveryToLine(b *testing.B) { deliveryToLine(b, nil, 0) }

// deliveryToLine is BenchmarkDeliveryToLine, with the follower also taking
// the probe's buckets from requests when it is not nil, and pace between
// notifications (so that the probe runs during the whole measure).
func deliveryToLine(b *testing.B, requests <-chan probe.Bucket, pace time.Duration) {
	pod := testPod(30, nil)
	fw := watch.NewFake()
	lw := &cache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (k8sruntime.Object, error) {
			return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: []corev1.Pod{*pod}}, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return fw, nil },
	}
	lines := make(lineSignal, 1)
	f := &follower{cfg: Config{Printer: Printer{Event: signalPrinter{w: lines}.Event}}}
	f.rec = NewRecorder(pod, nil, time.Now())
	f.rec.Emit = func(e Event) { callback.Call(f.cfg.Printer.Event, f.rec.TL, e) }
	f.rec.MarkT0(time.Now(), T0DeleteSent, "DELETE sent")
	<-lines
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	notices := make(chan listwatch.Notice)
	go (&listwatch.Stream{Name: "pod", LW: lw}).Run(ctx, notices)
	go func() {
		for {
			select {
			case n := <-notices:
				_ = f.handle(ctx, n)
			case bk := <-requests:
				f.requests(bk)
			case <-ctx.Done():
				return
			}
		}
	}()
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := pod.DeepCopy()
		p.ResourceVersion = fmt.Sprint(i + 2)
		p.Status.ContainerStatuses[0].Ready = i%2 == 1 // each notification changes readiness: one line
		sent := time.Now()
		fw.Modify(p)
		lat = append(lat, (<-lines).Sub(sent))
		time.Sleep(pace)
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
}

// BenchmarkNamespaceOf5000Slices feeds the Recorder a namespace of 5,000
// EndpointSlices (the fallback when Services cannot be listed and slices
// are filtered client-side by targetRef.uid), then b.N updates to them, and
// reports the heap still in use afterwards: the Recorder keeps only the
// slices that hold the pod's endpoint, so it stays flat as updates flow.
func BenchmarkNamespaceOf5000Slices(b *testing.B) {
	const n = 5000
	slices := make([]discoveryv1.EndpointSlice, n)
	for i := range slices {
		slices[i] = *readySlice(fmt.Sprintf("svc-%d-abc", i), fmt.Sprintf("svc-%d", i))
		slices[i].Endpoints[0].TargetRef.UID = "another-pod"
	}
	slices[42] = *readySlice("web-abc", "web")
	r := NewRecorder(testPod(30, nil), []string{"web"}, time.Now())
	r.feedSlices(time.Now(), slices, true)
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapInuse
	}
	before := heap()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := &slices[i%n]
		r.feedSlice(time.Now(), watch.Modified, s)
	}
	b.StopTimer()
	after := heap()
	b.ReportMetric(float64(int64(after)-int64(before))/1024, "heap-growth-KiB")
	b.ReportMetric(float64(len(r.slices)), "slices-kept")
}
