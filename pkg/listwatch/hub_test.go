package listwatch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

func hubPod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name}}
}

// key is the Key of a test stream called name.
func key(name string) Key { return Key{Resource: "pods", FieldSelector: "spec.nodeName=" + name} }

func event(stream string, typ watch.EventType, name string) Notice {
	return Notice{Stream: stream, Key: key(stream), Kind: KindEvent, Event: &watch.Event{Type: typ, Object: hubPod(name)}}
}

// kinds names each notice: err, list(N), event(name), gap-open, gap-close.
func kinds(ns []Notice) []string {
	var out []string
	for _, n := range ns {
		switch n.Kind {
		case KindError:
			out = append(out, "err")
		case KindList:
			out = append(out, fmt.Sprintf("list%d", len(n.List)))
		case KindGapOpen:
			out = append(out, "gap-open")
		case KindGapClose:
			out = append(out, "gap-close")
		case KindEvent:
			out = append(out, "event "+n.Event.Object.(*corev1.Pod).Name)
		}
	}
	return out
}

// recorder keeps what a subscriber was given.
type recorder struct {
	mu  sync.Mutex
	got []Notice
}

func (r *recorder) notice(n Notice) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, n)
}

// wait returns the kinds of what r was given once it holds n notices, or
// what it holds after 5 s: delivery runs on the subscription's goroutine.
func (r *recorder) wait(n int) []string {
	deadline := time.Now().Add(5 * time.Second)
	for len(r.kinds()) < n && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	return r.kinds()
}

// waitPods waits up to 5 s until r was given n pods, in its List and
// events together.
func (r *recorder) waitPods(n int) {
	count := func() int {
		r.mu.Lock()
		defer r.mu.Unlock()
		c := 0
		for _, x := range r.got {
			c += len(x.List)
			if x.Kind == KindEvent {
				c++
			}
		}
		return c
	}
	deadline := time.Now().Add(5 * time.Second)
	for count() < n && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
}

func (r *recorder) kinds() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return kinds(r.got)
}

// A subscriber that comes late starts from a List of what the stream
// holds, in a gap when the stream is in one, then gets the stream's own
// notices; Close ends it (an Err); a stream the Hub does not share, a
// failed stream or a closed Hub is refused (the caller then opens its own
// watch).
func TestHubStartsLateSubscribersFromWhatTheStreamHolds(t *testing.T) {
	h := NewHub(key("n1"), key("n2"))
	h.Publish(Notice{Stream: "n1", Key: key("n1"), Kind: KindList, Initial: true, List: []runtime.Object{hubPod("a"), hubPod("b")}})
	h.Publish(event("n1", watch.Deleted, "a"))
	h.Publish(Notice{Stream: "n1", Key: key("n1"), Kind: KindGapOpen})
	var r recorder
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if !h.Subscribe(ctx, key("n1"), r.notice) {
		t.Fatal("n1 refused")
	}
	h.Publish(Notice{Stream: "n1", Key: key("n1"), Kind: KindGapClose})
	h.Publish(event("n1", watch.Added, "c"))
	h.Publish(event("n2", watch.Added, "d"))
	h.Publish(event("other", watch.Added, "e"))
	h.Close()
	want := []string{"list1", "gap-open", "gap-close", "event c", "err"}
	if k := r.wait(len(want)); !slices.Equal(k, want) {
		t.Errorf("notices %v, want %v", k, want)
	}
	if p := r.got[0].List[0].(*corev1.Pod); p.Name != "b" || !r.got[0].Initial || r.got[0].Stream != "n1" {
		t.Errorf("replayed list %+v holds %s, want an initial List of n1 holding b (a was deleted)", r.got[0], p.Name)
	}
	if h.Subscribe(ctx, key("n1"), func(Notice) {}) {
		t.Errorf("subscribed after the Hub closed")
	}

	h = NewHub(key("n1"), key("budgets"))
	h.Publish(Notice{Stream: "budgets", Key: key("budgets"), Kind: KindError, Err: errors.New("forbidden")})
	if h.Subscribe(ctx, key("budgets"), func(Notice) {}) || h.Subscribe(ctx, key("n9"), func(Notice) {}) {
		t.Errorf("subscribed to a failed stream or a stream not shared")
	}
	var early recorder
	time.Sleep(10 * time.Millisecond)
	if !h.Subscribe(ctx, key("n1"), early.notice) || len(early.kinds()) != 0 {
		t.Errorf("before the first list: %v, want a subscription and no notice yet", early.kinds())
	}
	var none *Hub
	if none.Subscribe(ctx, key("n1"), func(Notice) {}) {
		t.Errorf("a nil Hub accepted a subscriber")
	}
}

// Each subscriber gets every Notice once, in the order published, while
// others subscribe at the same time: its replay first, then what was
// published after it.
func TestHubKeepsEachSubscribersOrder(t *testing.T) {
	h := NewHub(key("pods"))
	h.Publish(Notice{Stream: "pods", Key: key("pods"), Kind: KindList, Initial: true})
	const events, subscribers = 300, 8
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	recs := make([]*recorder, subscribers)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range events {
			h.Publish(event("pods", watch.Added, fmt.Sprintf("p%03d", i)))
		}
	}()
	for i := range recs {
		recs[i] = &recorder{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !h.Subscribe(ctx, key("pods"), recs[i].notice) {
				t.Error("refused")
			}
		}()
	}
	wg.Wait()
	for i, r := range recs {
		r.waitPods(events)
		r.mu.Lock()
		got := r.got
		r.mu.Unlock()
		if len(got) == 0 || got[0].Kind != KindList {
			t.Fatalf("subscriber %d: first notice %v, want the replayed List", i, kinds(got[:min(1, len(got))]))
		}
		// The replay holds the pods published before; the events after
		// it continue from there, each once, in order.
		next := len(got[0].List)
		for _, n := range got[1:] {
			if name := n.Event.Object.(*corev1.Pod).Name; name != fmt.Sprintf("p%03d", next) {
				t.Fatalf("subscriber %d: got %s, want p%03d", i, name, next)
			}
			next++
		}
		if next != events {
			t.Errorf("subscriber %d: saw up to p%03d, want all %d", i, next-1, events)
		}
	}
}

// A subscriber may subscribe again and end its own subscription from its
// callback: the Hub holds no lock while it calls one. Once its ctx ended
// it gets nothing more.
func TestHubCallbacksMaySubscribeAndUnsubscribe(t *testing.T) {
	h := NewHub(key("pods"))
	h.Publish(Notice{Stream: "pods", Key: key("pods"), Kind: KindList, Initial: true, List: []runtime.Object{hubPod("a")}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var inner, outer recorder
	listed := make(chan struct{})
	h.Subscribe(ctx, key("pods"), func(n Notice) {
		outer.notice(n)
		if n.Kind == KindList {
			if !h.Subscribe(context.Background(), key("pods"), inner.notice) {
				t.Error("the subscription from a callback was refused")
			}
			cancel()
			close(listed)
		}
	})
	select {
	case <-listed:
	case <-time.After(10 * time.Second):
		t.Fatal("deadlock: Subscribe from a callback did not return within 10 s")
	}
	h.Publish(event("pods", watch.Added, "b"))
	h.Close()
	if k := inner.wait(3); !slices.Equal(k, []string{"list1", "event b", "err"}) {
		t.Errorf("the subscriber added from a callback got %v", k)
	}
	if k := outer.kinds(); !slices.Equal(k, []string{"list1"}) {
		t.Errorf("the unsubscribed callback got %v, want the List only", k)
	}
}
