package timeline

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// countingPrinter counts what Follow prints, printing nothing.
type countingPrinter struct {
	mu     sync.Mutex
	events int
}

func (c *countingPrinter) Event(*Timeline, Event) { c.mu.Lock(); c.events++; c.mu.Unlock() }
func (c *countingPrinter) Gap(*Timeline, Gap)     {}
func (c *countingPrinter) Note(*Timeline, string) {}

// BenchmarkFollowNamespaceOf5000Slices runs Follow on the local cluster in a
// namespace holding 5,000 EndpointSlices of other Services, while b.N
// updates churn them, and reports the heap in use before and after: the
// kubernetes.io/service-name selector keeps the other slices on the server,
// so the heap stays flat however many there are or however often they
// change. Run with: go test -run XXX -bench FollowNamespace ./pkg/timeline
func BenchmarkFollowNamespaceOf5000Slices(b *testing.B) {
	env := e2e.Cluster(b)
	ns, node := env.Namespace(b), env.Node(b)
	ctx := context.Background()
	c := env.Client
	fill5000Slices(b, c.DiscoveryV1().EndpointSlices(ns))
	grace := int64(30)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-0", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{NodeName: node, TerminationGracePeriodSeconds: &grace, Containers: []corev1.Container{{Name: "app", Image: "nginx"}}}}
	e2e.WaitFor(b, 30*time.Second, "default ServiceAccount", func() bool {
		_, err := c.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		return err == nil
	})
	if _, err := c.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"},
		Ports: []corev1.ServicePort{{Port: 80}}}}
	if _, err := c.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	p := &countingPrinter{}
	fctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = Follow(fctx, Config{Client: c, Namespace: ns, Name: "web-0", Printer: Printer{Event: p.Event}})
	}()
	time.Sleep(2 * time.Second) // the initial Lists
	before := heapInUse()
	i := 0
	for b.Loop() {
		i++
		s, err := c.DiscoveryV1().EndpointSlices(ns).Get(ctx, fmt.Sprintf("other-%d", i%5000), metav1.GetOptions{})
		if err != nil {
			b.Fatal(err)
		}
		s.Labels["churn"] = fmt.Sprint(i)
		if _, err := c.DiscoveryV1().EndpointSlices(ns).Update(ctx, s, metav1.UpdateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	time.Sleep(time.Second)
	after := heapInUse()
	cancel()
	<-done
	b.ReportMetric(float64(before)/1024, "heap-before-KiB")
	b.ReportMetric(float64(after)/1024, "heap-after-KiB")
	b.ReportMetric(float64(p.events), "lines-printed")
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

type sliceCreator interface {
	Create(context.Context, *discoveryv1.EndpointSlice, metav1.CreateOptions) (*discoveryv1.EndpointSlice, error)
}

// fill5000Slices creates 5,000 hand-managed EndpointSlices of other Services
// with 8 workers.
func fill5000Slices(b *testing.B, c sliceCreator) {
	b.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < 5000; i += 8 {
				ready := true
				s := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("other-%d", i),
					Labels: map[string]string{discoveryv1.LabelServiceName: fmt.Sprintf("other-%d", i), discoveryv1.LabelManagedBy: "bench.graceful.test"}},
					AddressType: discoveryv1.AddressTypeIPv4,
					Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.1.0.1"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}}}
				if _, err := c.Create(context.Background(), s, metav1.CreateOptions{}); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
}
