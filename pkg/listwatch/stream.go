package listwatch

import (
	"cmp"
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// Stream lists then watches one kind of object, as client-go's reflector
// does: one goroutine reads every event and sees the end of every watch,
// resumes a dropped watch from the last resourceVersion it read (events
// and bookmarks), and re-lists when that resourceVersion expired (410
// Gone). Stream adds what the reflector keeps to itself: every drop and
// resumption is reported as a gap, in its place among the events, so that
// a lost connection is marked in the output, never hidden.
type Stream struct {
	// Name names the stream on gap lines and in Notice.Stream.
	Name string
	// Key, when set, is what a Hub shares the stream by (Notice.Key).
	Key Key
	LW  *cache.ListWatch
	// RetryDelay is the least time between the starts of two watches or
	// failed re-lists (default 1 s, client-go RetryWatcher's
	// minRestartDelay): a watch that drops at once is not reopened in a
	// hot loop.
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
	// ResourceVersion, when set, starts the stream with a watch from it,
	// without a List: the caller listed the objects at that
	// resourceVersion itself. A 410 Gone then re-lists as usual.
	ResourceVersion string
}

// Run reports to out, from the calling goroutine, until ctx ends or the
// stream fails for good (a KindError: the first List failed, or a List or
// watch is forbidden).
func (s *Stream) Run(ctx context.Context, out chan<- Notice) {
	r := &run{Stream: s, ctx: ctx, out: out, delay: cmp.Or(s.RetryDelay, time.Second)}
	r.loop()
}

// run is one Run's state, touched by its goroutine alone.
type run struct {
	*Stream
	ctx   context.Context
	out   chan<- Notice
	delay time.Duration
	// rv is the resourceVersion the next watch resumes from.
	rv string
	// gap is a KindGapOpen reported and not yet closed.
	gap bool
}

// send hands n to out, false once ctx ended.
func (r *run) send(n Notice) bool {
	n.Stream, n.Key = r.Name, r.Key
	if n.Recv.IsZero() {
		n.Recv = time.Now()
	}
	r.transform(n)
	switch n.Kind {
	case KindGapOpen:
		r.gap = true
	case KindGapClose:
		r.gap = false
	}
	select {
	case r.out <- n:
		return true
	case <-r.ctx.Done():
		return false
	}
}

// openGap reports a gap unless one is open already.
func (r *run) openGap(reason string) bool {
	if r.gap {
		return true
	}
	return r.send(Notice{Kind: KindGapOpen, Reason: reason})
}

// loop lists (or watch-lists), follows, and lists again after each 410.
func (r *run) loop() {
	for first := true; r.ctx.Err() == nil; first = false {
		var open watch.Interface
		listed := first && r.ResourceVersion != ""
		switch {
		case listed:
			r.rv = r.ResourceVersion
		case first && r.WatchList:
			open = r.watchList()
		}
		if open == nil && !listed && !r.list(first) {
			return
		}
		if !r.follow(open) {
			return
		}
	}
}

// watchList opens the stream's watch list and sends its initial objects:
// the watch, open still, to follow from there; nil when the API server
// refused it or it ended before its initial events did, and the stream
// lists instead.
func (r *run) watchList() watch.Interface {
	w, err := r.LW.WatchWithContext(r.ctx, metav1.ListOptions{SendInitialEvents: new(true),
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true})
	if err != nil || w == nil {
		return nil
	}
	var items []runtime.Object
	for ev := range w.ResultChan() {
		m, err := meta.Accessor(ev.Object)
		switch {
		case ev.Type == watch.Error || err != nil:
			w.Stop()
			return nil
		case ev.Type == watch.Bookmark && m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true":
			r.rv = m.GetResourceVersion()
			if !r.send(Notice{Kind: KindList, List: items, Initial: true}) {
				w.Stop()
				return nil
			}
			return w
		case ev.Type == watch.Added:
			items = append(items, ev.Object)
		}
	}
	w.Stop()
	return nil
}

// list sends a List (the first, or a re-list closing the gap that a 410
// opened), retrying a failed re-list every RetryDelay; false when the
// stream ends.
func (r *run) list(first bool) bool {
	for {
		obj, err := r.LW.ListWithContext(r.ctx, metav1.ListOptions{})
		if err == nil {
			recv := time.Now()
			items, err := meta.ExtractList(obj)
			acc, aerr := meta.ListAccessor(obj)
			if err = cmp.Or(err, aerr); err != nil {
				r.send(Notice{Recv: recv, Kind: KindError, Err: err})
				return false
			}
			r.rv = acc.GetResourceVersion()
			if !r.send(Notice{Recv: recv, Kind: KindList, List: items, Initial: first}) {
				return false
			}
			return first || r.send(Notice{Recv: recv, Kind: KindGapClose, Relisted: true})
		}
		if r.ctx.Err() != nil {
			return false
		}
		if first || apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
			r.send(Notice{Kind: KindError, Err: err})
			return false
		}
		if !r.sleep(r.delay) {
			return false
		}
	}
}

// sleep waits d, false when ctx ended first.
func (r *run) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.ctx.Done():
		return false
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
