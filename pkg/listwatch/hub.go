package listwatch

import (
	"context"
	"errors"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// Hub shares the Streams one reader runs with the other readers of the
// process, so that two readers of the same objects open one watch, not
// two: `drain node --watch` runs the node watch's stream of each node's
// pods and of the PodDisruptionBudgets, and the drain subscribes to them.
// A reader that subscribes late starts from a List of what the stream
// holds, then gets its Notices as the publisher takes them; a gap open at
// that time is its gap too.
//
// The Hub calls no subscriber while holding its lock: each subscriber has
// a queue, filled under the lock and emptied outside it, so a subscriber
// may subscribe or end its subscription from its own callback, and gets
// its Notices in the order published.
type Hub struct {
	mu      sync.Mutex
	streams map[string]*shared
	closed  bool
}

// errClosed is the Err of the Notice that ends every subscription when the
// Hub is closed: the publisher stopped, and the subscriber reads the API
// server on its own from then on.
var errClosed = errors.New("the shared watch ended")

// shared is one stream's objects as its Notices left them, and its
// subscribers.
type shared struct {
	name   string
	listed bool
	gap    bool
	failed bool
	objs   cache.Store
	subs   map[*subscriber]bool
}

// NewHub returns a Hub that shares the streams named (Notice.Stream);
// Notices of other streams are not kept.
func NewHub(streams ...string) *Hub {
	h := &Hub{streams: map[string]*shared{}}
	for _, s := range streams {
		h.streams[s] = &shared{name: s, objs: cache.NewStore(cache.MetaNamespaceKeyFunc), subs: map[*subscriber]bool{}}
	}
	return h
}

// Publish takes one Notice of a stream the Hub shares (ignoring any
// other) and hands it to the stream's subscribers. The Notices of one
// stream are published in their order, from one goroutine.
func (h *Hub) Publish(n Notice) {
	if h == nil {
		return
	}
	h.mu.Lock()
	st := h.streams[n.Stream]
	if h.closed || st == nil {
		h.mu.Unlock()
		return
	}
	st.take(n)
	subs := make([]*subscriber, 0, len(st.subs))
	for s := range st.subs {
		s.push(n)
		subs = append(subs, s)
	}
	h.mu.Unlock()
	for _, s := range subs {
		s.deliver()
	}
}

// take keeps what n changes of the stream's objects and state.
func (st *shared) take(n Notice) {
	switch n.Kind {
	case KindError:
		st.failed = true
	case KindGapOpen:
		st.gap = true
	case KindGapClose:
		st.gap = false
	case KindList:
		list := make([]any, len(n.List))
		for i, o := range n.List {
			list[i] = o
		}
		_ = st.objs.Replace(list, "")
		st.listed = true
	case KindEvent:
		switch n.Event.Type {
		case watch.Added, watch.Modified:
			_ = st.objs.Update(n.Event.Object)
		case watch.Deleted:
			_ = st.objs.Delete(n.Event.Object)
		}
	}
}

// Subscribe calls notice with the Notices of the stream named, until ctx
// ends: first, once the stream has listed, a KindList of what it holds
// (Initial), followed by a KindGapOpen while a gap is open; then each
// Notice published; a KindError when the Hub is closed before
// ctx ends. notice runs on the publisher's goroutine or the subscriber's,
// one call at a time, and must not block for long. Subscribe returns
// false, calling nothing, when the Hub does not share that stream, the
// stream failed, or the Hub is closed (or nil): the caller then opens its
// own watch.
func (h *Hub) Subscribe(ctx context.Context, stream string, notice func(Notice)) bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	st := h.streams[stream]
	if h.closed || st == nil || st.failed {
		h.mu.Unlock()
		return false
	}
	s := &subscriber{ctx: ctx, notice: notice}
	if st.listed {
		list := make([]runtime.Object, 0, len(st.objs.List()))
		for _, o := range st.objs.List() {
			list = append(list, o.(runtime.Object))
		}
		s.push(Notice{Stream: st.name, Recv: time.Now(), Kind: KindList, List: list, Initial: true})
		if st.gap {
			s.push(Notice{Stream: st.name, Recv: time.Now(), Kind: KindGapOpen, Reason: "the shared watch is in a gap"})
		}
	}
	st.subs[s] = true
	h.mu.Unlock()
	context.AfterFunc(ctx, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(st.subs, s)
	})
	s.deliver()
	return true
}

// Close ends every subscription with a KindError and refuses
// later ones: the publisher stopped.
func (h *Hub) Close() {
	if h == nil {
		return
	}
	h.mu.Lock()
	h.closed = true
	var subs []*subscriber
	for _, st := range h.streams {
		for s := range st.subs {
			s.push(Notice{Stream: st.name, Recv: time.Now(), Kind: KindError, Err: errClosed})
			subs = append(subs, s)
		}
		st.subs = map[*subscriber]bool{}
	}
	h.mu.Unlock()
	for _, s := range subs {
		s.deliver()
	}
}

// subscriber is one subscription: the Notices queued for it, handed to
// notice by one goroutine at a time (whichever found it idle), with no
// lock held during the call.
type subscriber struct {
	ctx    context.Context
	notice func(Notice)
	mu     sync.Mutex
	queue  []Notice
	busy   bool
}

// push queues n (called with the Hub's lock held: the queue's order is
// the order of publication).
func (s *subscriber) push(n Notice) {
	s.mu.Lock()
	s.queue = append(s.queue, n)
	s.mu.Unlock()
}

// deliver hands the queued Notices to notice, unless another goroutine is
// doing so already (it then delivers these too). Once ctx ended the rest
// are dropped.
func (s *subscriber) deliver() {
	s.mu.Lock()
	if s.busy {
		s.mu.Unlock()
		return
	}
	s.busy = true
	for len(s.queue) > 0 {
		n := s.queue[0]
		s.queue = s.queue[1:]
		s.mu.Unlock()
		if s.ctx.Err() == nil {
			s.notice(n)
		}
		s.mu.Lock()
	}
	s.busy = false
	s.mu.Unlock()
}
