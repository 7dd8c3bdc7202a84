package listwatch

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

func podRV(rv string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-0", ResourceVersion: rv}}
}

// scriptedLW serves Lists from lists and each Watch call from the next
// entry of watches: a fake watcher, or an error.
type scriptedLW struct {
	lists   chan string
	watches chan any
	opts    chan metav1.ListOptions
}

func (s *scriptedLW) lw() *cache.ListWatch {
	return listWatch(
		func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			rv := <-s.lists
			return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: rv}, Items: []corev1.Pod{*podRV(rv)}}, nil
		},
		func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			s.opts <- o
			switch w := (<-s.watches).(type) {
			case error:
				return nil, w
			default:
				return w.(watch.Interface), nil
			}
		})
}

func next(t *testing.T, ch <-chan Notice) Notice {
	t.Helper()
	select {
	case n := <-ch:
		return n
	case <-time.After(10 * time.Second):
		t.Fatal("no notice within 10 s")
	}
	return Notice{}
}

// A watch whose connection closes is resumed from its last resourceVersion
// and the drop is reported as a gap that opens and closes.
func TestStreamMarksDroppedWatchAndResumes(t *testing.T) {
	s := &scriptedLW{lists: make(chan string, 1), watches: make(chan any, 2), opts: make(chan metav1.ListOptions, 2)}
	s.lists <- "10"
	w1, w2 := watch.NewFake(), watch.NewFake()
	s.watches <- w1
	s.watches <- w2
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := make(chan Notice)
	go (&Stream{Name: "pod", LW: s.lw()}).Run(ctx, out)

	if n := next(t, out); n.Kind != KindList || !n.Initial || len(n.List) != 1 {
		t.Fatalf("first notice %+v, want the initial List", n)
	}
	if o := <-s.opts; o.ResourceVersion != "10" {
		t.Fatalf("first watch from %q, want the List's resourceVersion 10", o.ResourceVersion)
	}
	w1.Modify(podRV("11"))
	if n := next(t, out); n.Kind != KindEvent || n.Event.Type != watch.Modified {
		t.Fatalf("want the MODIFIED, got %+v", n)
	}
	w1.Stop() // the connection drops
	if n := next(t, out); n.Kind != KindGapOpen {
		t.Fatalf("want a gap opening, got %+v", n)
	}
	if o := <-s.opts; o.ResourceVersion != "11" {
		t.Fatalf("resumed from %q, want 11", o.ResourceVersion)
	}
	if n := next(t, out); n.Kind != KindGapClose || n.Relisted {
		t.Fatalf("want the gap closed by a resumed watch, got %+v", n)
	}
	w2.Modify(podRV("12"))
	if n := next(t, out); n.Kind != KindEvent {
		t.Fatalf("want the MODIFIED after the gap, got %+v", n)
	}
}

// A watch that expires (410 Gone) is replaced by a fresh List, and the gap
// is reported as re-listed.
func TestStreamRelistsAfterExpiry(t *testing.T) {
	s := &scriptedLW{lists: make(chan string, 2), watches: make(chan any, 3), opts: make(chan metav1.ListOptions, 3)}
	s.lists <- "10"
	s.lists <- "50"
	w1 := watch.NewFake()
	s.watches <- w1
	s.watches <- apierrors.NewResourceExpired("too old resource version: 11 (40)")
	s.watches <- watch.NewFake()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := make(chan Notice)
	go (&Stream{Name: "pod", LW: s.lw()}).Run(ctx, out)

	next(t, out) // initial List
	w1.Stop()
	if n := next(t, out); n.Kind != KindGapOpen {
		t.Fatalf("want a gap opening, got %+v", n)
	}
	n := next(t, out)
	if n.Kind == KindGapOpen {
		n = next(t, out) // the 410 itself may report the gap again
	}
	if n.Kind != KindList || n.Initial || n.List[0].(*corev1.Pod).ResourceVersion != "50" {
		t.Fatalf("want a re-list, got %+v", n)
	}
	if n := next(t, out); n.Kind != KindGapClose || !n.Relisted {
		t.Fatalf("want the gap closed as re-listed, got %+v", n)
	}
}

// A forbidden watch ends the stream with the error, so the caller can
// degrade with a note.
func TestStreamForbiddenList(t *testing.T) {
	lw := listWatch(
		func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return nil, apierrors.NewForbidden(schema.GroupResource{Group: "discovery.k8s.io", Resource: "endpointslices"}, "", nil)
		},
		func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) { return nil, nil })
	out := make(chan Notice, 1)
	(&Stream{Name: "EndpointSlices", LW: lw}).Run(context.Background(), out)
	if n := <-out; n.Kind != KindError || !apierrors.IsForbidden(n.Err) {
		t.Fatalf("want the forbidden error, got %+v", n)
	}
}

func listWatch(l cache.ListWithContextFunc, w cache.WatchFuncWithContext) *cache.ListWatch {
	return &cache.ListWatch{ListWithContextFunc: l, WatchFuncWithContext: w}
}

// A stream clears managedFields from both the List and the watch events,
// and one with KeepManagedFields leaves them (the Events' are read).
func TestStreamDropsManagedFields(t *testing.T) {
	withFields := func(rv string) *corev1.Pod {
		p := podRV(rv)
		p.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate}}
		return p
	}
	for _, drop := range []bool{true, false} {
		lw := listWatch(
			func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: []corev1.Pod{*withFields("1")}}, nil
			},
			func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
				w := watch.NewFakeWithChanSize(1, false)
				w.Modify(withFields("2"))
				return w, nil
			})
		ctx, cancel := context.WithCancel(context.Background())
		out := make(chan Notice, 4)
		go (&Stream{Name: "pod", LW: lw, KeepManagedFields: !drop}).Run(ctx, out)
		list, ev := next(t, out), next(t, out)
		cancel()
		got := []int{len(list.List[0].(*corev1.Pod).ManagedFields), len(ev.Event.Object.(*corev1.Pod).ManagedFields)}
		want := 1
		if drop {
			want = 0
		}
		if got[0] != want || got[1] != want {
			t.Errorf("KeepManagedFields %v: managedFields entries (list, watch) %v, want %d each", !drop, got, want)
		}
	}
}
