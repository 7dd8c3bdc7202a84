package listwatch

import (
	"context"
	"io"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// scriptDecoder is one watch connection as client-go reads it off the
// wire (watch.StreamWatcher over a decoder): it decodes its events, then
// io.EOF, the connection closing right after the last one.
type scriptDecoder struct {
	events []watch.Event
	closed chan struct{}
}

func (d *scriptDecoder) Decode() (watch.EventType, runtime.Object, error) {
	if len(d.events) == 0 {
		<-d.closed // a watch left open until Stop
		return "", nil, io.EOF
	}
	ev := d.events[0]
	d.events = d.events[1:]
	if ev.Type == "" {
		return "", nil, io.EOF
	}
	return ev.Type, ev.Object, nil
}

func (d *scriptDecoder) Close() { close(d.closed) }

type noReport struct{}

func (noReport) AsObject(err error) runtime.Object { return &metav1.Status{Message: err.Error()} }

// connection is a watch that sends events and then, when end is "",
// closes, as an API server dropping it does; end "open" leaves it open.
func connection(end string, events ...watch.Event) watch.Interface {
	if end == "" {
		events = append(events, watch.Event{})
	}
	return watch.NewStreamWatcher(&scriptDecoder{events: events, closed: make(chan struct{})}, noReport{})
}

func modified(rv string) watch.Event { return watch.Event{Type: watch.Modified, Object: podRV(rv)} }

// orderRun runs one Stream over a List at 10 and the watches given, and
// returns the first n Notices as "kind rv" words.
func orderRun(t *testing.T, n int, watches ...watch.Interface) ([]string, []string) {
	t.Helper()
	var from []string
	calls := 0
	lw := listWatch(
		func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "10"}}, nil
		},
		func(_ context.Context, o metav1.ListOptions) (watch.Interface, error) {
			from = append(from, o.ResourceVersion)
			calls++
			if calls > len(watches) {
				return connection("open"), nil
			}
			return watches[calls-1], nil
		})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := make(chan Notice)
	done := make(chan struct{})
	go func() { defer close(done); (&Stream{Name: "pods", LW: lw, RetryDelay: time.Microsecond}).Run(ctx, out) }()
	var got []string
	for range n {
		got = append(got, word(next(t, out)))
	}
	cancel()
	<-done
	return got, from
}

func word(n Notice) string {
	switch n.Kind {
	case KindList:
		return "list"
	case KindEvent:
		return "event " + n.Event.Object.(*corev1.Pod).ResourceVersion
	case KindGapOpen:
		return "gap-open"
	case KindGapClose:
		return "gap-close"
	}
	return "error"
}

// An event and the watch's end sent back to back: the event comes before
// the gap its watch's end opens, every time, and the watch resumes from
// it. Then the same for a gap that closes and an event right after it.
func TestStreamOrderEventThenDrop(t *testing.T) {
	want := []string{"list", "event 11", "gap-open", "gap-close", "event 12"}
	for i := range 3000 {
		got, from := orderRun(t, len(want), connection("", modified("11")), connection("open", modified("12")))
		if !equal(got, want) {
			t.Fatalf("run %d: notices %v, want %v", i, got, want)
		}
		if len(from) < 2 || from[0] != "10" || from[1] != "11" {
			t.Fatalf("run %d: watches opened from %v, want 10 then 11", i, from)
		}
	}
}

// Several events then a drop, then a drop at once on resumption: each
// event stays on its side of each gap, and the gaps do not nest.
func TestStreamOrderDropsInARow(t *testing.T) {
	want := []string{"list", "event 11", "event 12", "gap-open", "gap-close", "gap-open", "gap-close", "event 13"}
	for i := range 1000 {
		got, from := orderRun(t, len(want), connection("", modified("11"), modified("12")), connection(""),
			connection("open", modified("13")))
		if !equal(got, want) {
			t.Fatalf("run %d: notices %v, want %v", i, got, want)
		}
		if len(from) < 3 || from[1] != "12" || from[2] != "12" {
			t.Fatalf("run %d: watches opened from %v, want 10, 12, 12", i, from)
		}
	}
}

// A bookmark moves the resourceVersion a resumed watch starts from, and is
// not sent as an event.
func TestStreamBookmarkMovesResume(t *testing.T) {
	bookmark := watch.Event{Type: watch.Bookmark, Object: podRV("20")}
	want := []string{"list", "event 11", "gap-open", "gap-close", "event 21"}
	got, from := orderRun(t, len(want), connection("", modified("11"), bookmark), connection("open", modified("21")))
	if !equal(got, want) || from[1] != "20" {
		t.Fatalf("notices %v from %v, want %v and the resumption from the bookmark's 20", got, from, want)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A stream given the resourceVersion its caller listed at starts with a
// watch from it, without a List of its own.
func TestStreamFromResourceVersion(t *testing.T) {
	lists, from := 0, make(chan string, 1)
	lw := listWatch(
		func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			lists++
			return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "10"}}, nil
		},
		func(_ context.Context, o metav1.ListOptions) (watch.Interface, error) {
			from <- o.ResourceVersion
			return connection("open", modified("31")), nil
		})
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan Notice)
	done := make(chan struct{})
	go func() { defer close(done); (&Stream{Name: "nodes", LW: lw, ResourceVersion: "30"}).Run(ctx, out) }()
	if got := word(next(t, out)); got != "event 31" || <-from != "30" {
		t.Fatalf("first notice %q, want the event of a watch from 30", got)
	}
	cancel()
	<-done
	if lists != 0 {
		t.Fatalf("%d Lists, want none", lists)
	}
}
