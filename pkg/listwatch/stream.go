package listwatch

import (
	"context"
	"fmt"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
)

// Stream lists then watches one kind of object with client-go's
// RetryWatcher, which resumes a dropped watch from its last resourceVersion.
// Stream adds what RetryWatcher keeps to itself: it reports every drop and
// resumption as a gap, and re-lists when the resourceVersion expired (410
// Gone), so that a lost connection is marked in the output, never hidden.
type Stream struct {
	Name string
	LW   *cache.ListWatch
	// RetryDelay is the wait between failed re-lists (default 1 s).
	RetryDelay time.Duration
	// KeepManagedFields keeps metadata.managedFields of what the stream
	// sends. Without it they are cleared from every object listed or
	// watched before it is sent, as an informer's cache.TransformFunc
	// would: a pod's managedFields are about a third of its size, carried
	// by every copy and store downstream, and only the Events' are ever
	// read (their write times, Recorder).
	KeepManagedFields bool
	// WatchList opens the stream with one watch list (a watch that sends
	// what a List would return as ADDED events, then a bookmark annotated
	// k8s.io/initial-events-end, then the changes: sendInitialEvents,
	// KEP-3157) where a List then a watch are two requests. Set it only
	// for a client that serves one (not client-go's fake clientset:
	// watchlist.DoesClientNotSupportWatchListSemantics); an API server that
	// refuses it is listed as without. A re-list after 410 Gone is a List.
	WatchList bool
}

// Run reports to out until ctx ends or the stream fails for good.
func (s *Stream) Run(ctx context.Context, out chan<- Notice) {
	send := func(n Notice) bool {
		n.Stream = s.Name
		s.transform(n)
		select {
		case out <- n:
			return true
		case <-ctx.Done():
			return false
		}
	}
	delay := s.RetryDelay
	if delay == 0 {
		delay = time.Second
	}
	for first, relist := true, false; ctx.Err() == nil; first = false {
		if first && s.WatchList {
			if items, rv, w := s.watchList(ctx); w != nil {
				if !send(Notice{Recv: time.Now(), Kind: KindList, List: items, Initial: true}) {
					w.Stop()
					return
				}
				if relist = s.watchFrom(ctx, rv, send, w); !relist {
					return
				}
				continue
			}
		}
		obj, err := s.LW.ListWithContext(ctx, metav1.ListOptions{})
		if err != nil {
			if first || apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
				send(Notice{Recv: time.Now(), Kind: KindError, Err: err})
				return
			}
			select {
			case <-time.After(delay):
			case <-ctx.Done():
			}
			continue
		}
		recv := time.Now()
		items, rv, err := listItems(obj)
		if err != nil {
			send(Notice{Recv: recv, Kind: KindError, Err: err})
			return
		}
		if !send(Notice{Recv: recv, Kind: KindList, List: items, Initial: first}) {
			return
		}
		if relist && !send(Notice{Recv: recv, Kind: KindGapClose, Relisted: true}) {
			return
		}
		relist = s.watch(ctx, rv, send)
		if !relist {
			return
		}
	}
}

// transform applies the stream's changes to the objects of n in place:
// each was decoded for this stream alone.
func (s *Stream) transform(n Notice) {
	if s.KeepManagedFields {
		return
	}
	drop := func(o runtime.Object) {
		if m, err := meta.Accessor(o); err == nil {
			m.SetManagedFields(nil)
		}
	}
	for _, o := range n.List {
		drop(o)
	}
	if n.Event != nil && n.Event.Object != nil {
		drop(n.Event.Object)
	}
}

func listItems(obj runtime.Object) ([]runtime.Object, string, error) {
	items, err := meta.ExtractList(obj)
	if err != nil {
		return nil, "", err
	}
	acc, err := meta.ListAccessor(obj)
	if err != nil {
		return nil, "", err
	}
	return items, acc.GetResourceVersion(), nil
}

// watch follows from rv until the watch expires (returns true: re-list) or
// ctx ends or the watch is forbidden (returns false).
func (s *Stream) watch(ctx context.Context, rv string, send func(Notice) bool) bool {
	return s.watchFrom(ctx, rv, send, nil)
}

// watchList opens a watch list and reads its initial events: the objects,
// the resourceVersion they were read at, and the watch, open still, to
// follow from there; a nil watch when the API server refused it or it
// ended before its initial events did.
func (s *Stream) watchList(ctx context.Context) ([]runtime.Object, string, watch.Interface) {
	yes := true
	w, err := s.LW.WatchWithContext(ctx, metav1.ListOptions{SendInitialEvents: &yes,
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true})
	if err != nil {
		return nil, "", nil
	}
	var items []runtime.Object
	for ev := range w.ResultChan() {
		m, err := meta.Accessor(ev.Object)
		switch {
		case ev.Type == watch.Error || err != nil:
			w.Stop()
			return nil, "", nil
		case ev.Type == watch.Bookmark && m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true":
			return items, m.GetResourceVersion(), w
		case ev.Type == watch.Added:
			items = append(items, ev.Object)
		}
	}
	w.Stop()
	return nil, "", nil
}

// watchFrom is watch, its first watch opened already when open is not nil.
func (s *Stream) watchFrom(ctx context.Context, rv string, send func(Notice) bool, open watch.Interface) bool {
	rw, err := watchtools.NewRetryWatcherWithContext(ctx, rv, s.gapWatcher(send, open))
	if err != nil {
		send(Notice{Recv: time.Now(), Kind: KindError, Err: err})
		return false
	}
	defer rw.Stop()
	for ev := range rw.ResultChan() {
		recv := time.Now()
		if ev.Type != watch.Error {
			ev := ev
			if !send(Notice{Recv: recv, Kind: KindEvent, Event: &ev}) {
				return false
			}
			continue
		}
		status := apierrors.FromObject(ev.Object)
		if apierrors.IsForbidden(status) || apierrors.IsUnauthorized(status) {
			send(Notice{Recv: recv, Kind: KindError, Err: status})
			return false
		}
		send(Notice{Recv: recv, Kind: KindGapOpen, Reason: fmt.Sprintf("watch ended: %v", status)})
		return ctx.Err() == nil
	}
	return false
}

// gapWatcher is the RetryWatcher's client: it opens each watch through the
// stream's ListWatch (open, a watch list's watch opened already, first)
// and reports when one drops (its channel closes without Stop) and when a
// later one succeeds. A 410 Gone at connection time is turned into a watch
// error event, so that RetryWatcher ends and the stream re-lists instead
// of retrying a dead resourceVersion.
func (s *Stream) gapWatcher(send func(Notice) bool, open watch.Interface) *cache.ListWatch {
	calls := 0
	return &cache.ListWatch{WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
		if w := open; w != nil {
			open = nil
			calls++
			return dropWatcher(w, send), nil
		}
		w, err := s.LW.WatchWithContext(ctx, opts)
		if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
			st := metav1.Status{Status: metav1.StatusFailure, Code: http.StatusGone, Reason: metav1.StatusReasonGone, Message: err.Error()}
			fw := watch.NewFakeWithChanSize(1, false)
			fw.Error(&st)
			fw.Stop()
			return fw, nil
		}
		if err != nil {
			return nil, err
		}
		calls++
		if calls > 1 {
			send(Notice{Recv: time.Now(), Kind: KindGapClose})
		}
		return dropWatcher(w, send), nil
	}}
}

// dropWatcher forwards inner and reports a drop when inner's channel
// closes before the watch it returns is stopped.
func dropWatcher(inner watch.Interface, send func(Notice) bool) watch.Interface {
	out := make(chan watch.Event)
	pw := watch.NewProxyWatcher(out)
	go func() {
		defer close(out)
		defer inner.Stop()
		for {
			select {
			case ev, ok := <-inner.ResultChan():
				if !ok {
					if !pw.Stopping() {
						send(Notice{Recv: time.Now(), Kind: KindGapOpen, Reason: "watch connection closed"})
					}
					return
				}
				select {
				case out <- ev:
				case <-pw.StopChan():
					return
				}
			case <-pw.StopChan():
				return
			}
		}
	}()
	return pw
}
