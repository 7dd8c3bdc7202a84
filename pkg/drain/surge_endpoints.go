package drain

import (
	"cmp"
	"context"
	"sort"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kubectl-graceful/kubectl-graceful/internal/capacity"
	"github.com/kubectl-graceful/kubectl-graceful/internal/selecting"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// endpointWatch follows the EndpointSlices of the Services of one
// workload during its rollout and keeps each one's lowest Ready count.
type endpointWatch struct {
	mu      sync.Mutex
	min     map[string]int32
	unknown map[string]string
	names   []string
	done    chan struct{}
}

// followEndpoints starts the watch of the EndpointSlices of the Services
// of namespace selecting pods labelled podLabels and returns once it has their first List (so the
// counts start before the rollout), or ctx ended; res.ServicesUnknown says
// why none could be read.
func (d *nodeRun) followEndpoints(ctx context.Context, namespace string, podLabels map[string]string, res *SurgeResult) *endpointWatch {
	w := &endpointWatch{min: map[string]int32{}, unknown: map[string]string{}, done: make(chan struct{})}
	probe := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Labels: podLabels}}
	names, err := selecting.Services(ctx, d.Client, probe)
	if err != nil {
		res.ServicesUnknown = "unknown: the Services could not be read: " + err.Error()
	}
	if len(names) == 0 {
		close(w.done)
		return w
	}
	w.names = names
	listed := make(chan struct{})
	s := &listwatch.Stream{Name: timeline.StreamEndpointSlices, LW: cache.NewFilteredListWatchFromClient(
		d.Client.DiscoveryV1().RESTClient(), "endpointslices", namespace, func(o *metav1.ListOptions) {
			o.LabelSelector = discoveryv1.LabelServiceName + " in (" + strings.Join(names, ",") + ")"
		})}
	go w.run(ctx, s, capacity.NewTracker(names, capacity.DesiredReadyAtStart), listed)
	select {
	case <-listed:
	case <-ctx.Done():
	}
	return w
}

// run takes the stream's notices until ctx ends, closing listed at the
// first List or error.
func (w *endpointWatch) run(ctx context.Context, s *listwatch.Stream, t *capacity.Tracker, listed chan struct{}) {
	defer close(w.done)
	first := sync.OnceFunc(func() { close(listed) })
	defer first()
	ch := make(chan listwatch.Notice)
	go s.Run(ctx, ch)
	for {
		select {
		case <-ctx.Done():
			return
		case n := <-ch:
			w.notice(t, n)
			if n.Kind == listwatch.KindList || n.Kind == listwatch.KindError {
				first()
			}
			if n.Kind == listwatch.KindError {
				return
			}
		}
	}
}

// notice records one notice of the stream.
func (w *endpointWatch) notice(t *capacity.Tracker, n listwatch.Notice) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var changes []capacity.Change
	switch n.Kind {
	case listwatch.KindError:
		w.markAll("unknown: the EndpointSlices could not be watched: " + n.Err.Error())
	case listwatch.KindGapOpen:
		w.markAll("unknown: the EndpointSlice watch lost its connection during the rollout; a drop to zero then would not have been seen")
	case listwatch.KindList:
		changes = t.List(n.Recv, n.List, n.Initial)
	case listwatch.KindEvent:
		if s, ok := n.Event.Object.(*discoveryv1.EndpointSlice); ok {
			changes = t.Slice(n.Recv, n.Event.Type, s)
		}
	}
	for _, c := range changes {
		if m, ok := w.min[c.Service]; !ok || c.Sample.Ready < m {
			w.min[c.Service] = c.Sample.Ready
		}
	}
}

// markAll sets why every Service's count is unknown, keeping a first reason.
func (w *endpointWatch) markAll(why string) {
	for _, s := range w.names {
		w.unknown[s] = cmp.Or(w.unknown[s], why)
	}
}

// wait returns each Service's result once the watch ended (its context
// cancelled).
func (w *endpointWatch) wait() []ServiceEndpoints {
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	out := []ServiceEndpoints{}
	for _, name := range w.names {
		e := ServiceEndpoints{Service: name, Unknown: w.unknown[name]}
		if m, ok := w.min[name]; ok {
			e.MinReady = &m
		} else if e.Unknown == "" {
			e.Unknown = "unknown: its EndpointSlices were never listed"
		}
		out = append(out, e)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Service < out[b].Service })
	return out
}
