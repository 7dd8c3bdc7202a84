package listwatch

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// One subscriber that sleeps on every notice neither stalls the
// publisher nor the others: they get every event as fast as with no slow
// subscriber at all.
func TestHubSlowSubscriberStallsNoOne(t *testing.T) {
	const events = 200
	run := func(slow bool) (publish, others time.Duration) {
		h := NewHub(key("pods"))
		h.Publish(Notice{Stream: "pods", Key: key("pods"), Kind: KindList, Initial: true})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if slow {
			h.Subscribe(ctx, key("pods"), func(Notice) { time.Sleep(20 * time.Millisecond) })
		}
		fast := make([]*recorder, 3)
		for i := range fast {
			fast[i] = &recorder{}
			h.Subscribe(ctx, key("pods"), fast[i].notice)
		}
		start := time.Now()
		for i := range events {
			h.Publish(event("pods", watch.Added, fmt.Sprintf("p%03d", i)))
		}
		publish = time.Since(start)
		for _, r := range fast {
			r.waitPods(events)
		}
		return publish, time.Since(start)
	}
	_, baseline := run(false)
	publish, others := run(true)
	// The slow subscriber alone would take 4 s over these events.
	if publish > time.Second || others > baseline+time.Second {
		t.Errorf("with a slow subscriber: publishing took %v, the others' delivery %v (%v without it); "+
			"want neither held back by it", publish, others, baseline)
	}
}

// A subscriber that falls more than queueLimit notices behind gets a gap
// in place of what it missed, then a re-list of what the stream holds and
// the gap's close: no notice lost unseen. The others get every event.
func TestHubOverflowIsAGap(t *testing.T) {
	defer func(l int) { queueLimit = l }(queueLimit)
	queueLimit = 10
	h := NewHub(key("pods"))
	h.Publish(Notice{Stream: "pods", Key: key("pods"), Kind: KindList, Initial: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	release := make(chan struct{})
	var once sync.Once
	var slow, fast recorder
	h.Subscribe(ctx, key("pods"), func(n Notice) {
		slow.notice(n)
		once.Do(func() { <-release }) // stuck on its first notice
	})
	h.Subscribe(ctx, key("pods"), fast.notice)
	slow.wait(1) // its List taken: 10 places left
	for i := range 50 {
		h.Publish(event("pods", watch.Added, fmt.Sprintf("p%03d", i)))
	}
	close(release)
	fast.waitPods(50)
	slow.waitPods(50 + 10)
	got := slow.kinds()
	// Its List, the first 10 events it had room for, the gap, then the
	// re-list of all 50 and the gap's close.
	want := []string{"list0"}
	for i := range 10 {
		want = append(want, fmt.Sprintf("event p%03d", i))
	}
	want = append(want, "gap-open", "list50", "gap-close")
	if !slices.Equal(got, want) {
		t.Errorf("the subscriber behind got %v, want %v", got, want)
	}
	slow.mu.Lock()
	last := slow.got[len(slow.got)-1]
	slow.mu.Unlock()
	if !last.Relisted {
		t.Errorf("the gap's close %+v does not say it re-listed", last)
	}
	// However far behind a subscriber fell, what it holds in the end is
	// what the stream holds.
	for _, r := range []*recorder{&slow, &fast} {
		if held := r.held(); len(held) != 50 {
			t.Errorf("a subscriber holds %d pods in the end, want the 50 published", len(held))
		}
	}
}

// held is what r's notices leave of the stream's objects, by name.
func (r *recorder) held() map[string]bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]bool{}
	for _, n := range r.got {
		switch n.Kind {
		case KindList:
			clear(out)
			for _, o := range n.List {
				out[o.(*corev1.Pod).Name] = true
			}
		case KindEvent:
			out[n.Event.Object.(*corev1.Pod).Name] = n.Event.Type != watch.Deleted
		}
	}
	return out
}
