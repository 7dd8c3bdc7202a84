package drain

import (
	"context"
	"maps"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

// runStream runs s and calls notice with each of its Notices, in order,
// until ctx ends or the stream failed for good, and returns the error
// that ended it (nil when ctx did).
func runStream(ctx context.Context, s *listwatch.Stream, notice func(listwatch.Notice)) error {
	ch := make(chan listwatch.Notice)
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx, ch) }()
	for {
		select {
		case n := <-ch:
			notice(n)
			if n.Kind == listwatch.KindError {
				<-done
				return n.Err
			}
		case <-done:
			return nil
		}
	}
}

// clientListWatch lists and watches through a client's own List and Watch
// (a typed clientset's or a dynamic one's), each request's options passed
// through modify first.
func clientListWatch[L runtime.Object](list func(context.Context, metav1.ListOptions) (L, error),
	watchFn func(context.Context, metav1.ListOptions) (watch.Interface, error), modify ...func(*metav1.ListOptions)) *cache.ListWatch {
	options := func(o *metav1.ListOptions) {
		for _, m := range modify {
			m(o)
		}
	}
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			options(&o)
			return list(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			options(&o)
			return watchFn(ctx, o)
		},
	}
}

// untilStream follows s until cond says done or fails, as client-go's
// watchtools.UntilWithSync does with its informer: each object of a List
// is handed to cond as ADDED, and after a re-list (410 Gone) each object
// the new List lacks as DELETED; then each watch event. A gap only delays
// the events; the stream's own failure (RBAC) is returned, and ctx's error
// when it ends first.
func untilStream(ctx context.Context, s *listwatch.Stream, cond func(watch.Event) (bool, error)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var result error
	finished := false
	held := map[string]runtime.Object{}
	_ = runStream(ctx, s, func(n listwatch.Notice) {
		if finished {
			return
		}
		if n.Kind == listwatch.KindError {
			result, finished = n.Err, true
			return
		}
		for _, ev := range untilEvents(n, held) {
			if done, err := cond(ev); done || err != nil {
				result, finished = err, true
				cancel()
				return
			}
		}
	})
	if !finished {
		return ctx.Err()
	}
	return result
}

// untilEvents is what n changes of held, as the events an informer hands
// its handlers.
func untilEvents(n listwatch.Notice, held map[string]runtime.Object) []watch.Event {
	key := func(o runtime.Object) string {
		k, _ := cache.MetaNamespaceKeyFunc(o)
		return k
	}
	switch n.Kind {
	case listwatch.KindList:
		var out []watch.Event
		was := maps.Clone(held)
		clear(held)
		for _, o := range n.List {
			held[key(o)] = o
			out = append(out, watch.Event{Type: watch.Added, Object: o})
		}
		for k, o := range was {
			if held[k] == nil {
				out = append(out, watch.Event{Type: watch.Deleted, Object: o})
			}
		}
		return out
	case listwatch.KindEvent:
		if n.Event.Type == watch.Deleted {
			delete(held, key(n.Event.Object))
		} else if n.Event.Type != watch.Bookmark {
			held[key(n.Event.Object)] = n.Event.Object
		}
		return []watch.Event{*n.Event}
	}
	return nil
}
