package main

import (
	"context"
	"errors"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

func sharedPod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name}}
}

// kinds names each notice: err, list(N), event, gap-open, gap-close.
func kinds(ns []listwatch.Notice) []string {
	var out []string
	for _, n := range ns {
		switch n.Kind {
		case listwatch.KindError:
			out = append(out, "err")
		case listwatch.KindList:
			out = append(out, "list"+string(rune('0'+len(n.List))))
		case listwatch.KindGapOpen:
			out = append(out, "gap-open")
		case listwatch.KindGapClose:
			out = append(out, "gap-close")
		case listwatch.KindEvent:
			out = append(out, "event")
		}
	}
	return out
}

// A subscriber that comes late starts from a List of what the node
// watch's stream holds, in a gap when the stream is in one, then gets the
// stream's own notices; the watch's end ends it (an Err); a node the watch
// does not follow, a failed stream or an ended watch is refused (the
// drain then opens its own watch).
func TestSharedWatchesStartLateSubscribersFromWhatTheStreamHolds(t *testing.T) {
	s := newSharedWatches([]string{"n1", "n2"})
	s.tap("n1", listwatch.Notice{Kind: listwatch.KindList, Initial: true, List: []runtime.Object{sharedPod("a"), sharedPod("b")}})
	s.tap("n1", listwatch.Notice{Kind: listwatch.KindEvent, Event: &watch.Event{Type: watch.Deleted, Object: sharedPod("a")}})
	s.tap("n1", listwatch.Notice{Kind: listwatch.KindGapOpen})
	var got []listwatch.Notice
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if !s.subscribe(ctx, "n1", func(n listwatch.Notice) { got = append(got, n) }) {
		t.Fatal("n1 refused")
	}
	s.tap("n1", listwatch.Notice{Kind: listwatch.KindGapClose})
	s.tap("n1", listwatch.Notice{Kind: listwatch.KindEvent, Event: &watch.Event{Type: watch.Added, Object: sharedPod("c")}})
	s.tap("n2", listwatch.Notice{Kind: listwatch.KindEvent, Event: &watch.Event{Type: watch.Added, Object: sharedPod("d")}})
	s.end()
	want := []string{"list1", "gap-open", "gap-close", "event", "err"}
	if k := kinds(got); !slices.Equal(k, want) {
		t.Errorf("notices %v, want %v", k, want)
	}
	if p := got[0].List[0].(*corev1.Pod); p.Name != "b" {
		t.Errorf("replayed list holds %s, want b (a was deleted)", p.Name)
	}
	if s.subscribe(ctx, "n1", func(listwatch.Notice) {}) {
		t.Errorf("subscribed after the watch ended")
	}

	s = newSharedWatches([]string{"n1"})
	s.tap("", listwatch.Notice{Kind: listwatch.KindError, Err: errors.New("forbidden")})
	if s.subscribe(ctx, "", func(listwatch.Notice) {}) || s.subscribe(ctx, "n9", func(listwatch.Notice) {}) {
		t.Errorf("subscribed to a failed stream or a node not watched")
	}
	got = nil
	if !s.subscribe(ctx, "n1", func(n listwatch.Notice) { got = append(got, n) }) || len(got) != 0 {
		t.Errorf("before the first list: %v, want a subscription and no notice yet", kinds(got))
	}
}
