package listwatch

import (
	"context"
	"errors"
	"fmt"
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
// Each subscriber is called from a goroutine of its own, never the
// publisher's, through a queue of at most 4,096 Notices: a slow
// subscriber cannot stall the stream or the other subscribers. One that
// falls that far behind gets a KindGapOpen in place of what it missed,
// then, once it caught up, a List of what the stream holds and a
// KindGapClose (Relisted), as a Stream re-lists after 410 Gone: never a
// silent drop. It gets its Notices in the order published, and may
// subscribe or end its subscription from its own callback.
type Hub struct {
	mu      sync.Mutex
	streams map[Key]*shared
	closed  bool
}

// queueLimit is how many Notices a subscriber may have waiting before it
// is behind (see Hub): at 4,096 a pod watch's subscriber is a few
// megabytes behind, seconds of a node drain's busiest stream.
var queueLimit = 4096

// errClosed is the Err of the Notice that ends every subscription when the
// Hub is closed: the publisher stopped, and the subscriber reads the API
// server on its own from then on.
var errClosed = errors.New("the shared watch ended")

// shared is one stream's objects as its Notices left them, and its
// subscribers; name is the publisher's Stream name (Notice.Stream).
type shared struct {
	key    Key
	name   string
	listed bool
	gap    bool
	failed bool
	objs   cache.Store
	subs   map[*subscriber]bool
}

// NewHub returns a Hub that shares the streams of these keys
// (Notice.Key); Notices of other streams are not kept.
func NewHub(keys ...Key) *Hub {
	h := &Hub{streams: map[Key]*shared{}}
	for _, k := range keys {
		h.streams[k] = &shared{key: k, objs: cache.NewStore(cache.MetaNamespaceKeyFunc), subs: map[*subscriber]bool{}}
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
	st := h.streams[n.Key]
	if h.closed || st == nil || n.Key == (Key{}) {
		h.mu.Unlock()
		return
	}
	st.name = n.Stream
	st.take(n)
	for s := range st.subs {
		s.push(n)
	}
	h.mu.Unlock()
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

// Subscribe calls notice with the Notices of the stream of key, until ctx
// ends: first, once the stream has listed, a KindList of what it holds
// (Initial), followed by a KindGapOpen while a gap is open; then each
// Notice published; a KindError when the Hub is closed before
// ctx ends. notice runs on a goroutine of the subscription's own, one call
// at a time, from Subscribe's return on. Subscribe returns
// false, calling nothing, when the Hub does not share that stream, the
// stream failed, or the Hub is closed (or nil): the caller then opens its
// own watch.
func (h *Hub) Subscribe(ctx context.Context, key Key, notice func(Notice)) bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	st := h.streams[key]
	if h.closed || st == nil || st.failed {
		h.mu.Unlock()
		return false
	}
	s := &subscriber{ctx: ctx, notice: notice, hub: h, st: st, wake: make(chan struct{}, 1)}
	if st.listed {
		s.queue = append(s.queue, st.list(true))
		if st.gap {
			s.queue = append(s.queue, Notice{Stream: st.name, Key: st.key, Recv: time.Now(), Kind: KindGapOpen, Reason: "the shared watch is in a gap"})
		}
	}
	st.subs[s] = true
	h.mu.Unlock()
	context.AfterFunc(ctx, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(st.subs, s)
	})
	go s.run()
	return true
}

// list is a KindList of what the stream holds.
func (st *shared) list(initial bool) Notice {
	objs := st.objs.List()
	list := make([]runtime.Object, 0, len(objs))
	for _, o := range objs {
		list = append(list, o.(runtime.Object))
	}
	return Notice{Stream: st.name, Key: st.key, Recv: time.Now(), Kind: KindList, List: list, Initial: initial}
}

// resync ends s's overflow: a List of what the stream holds, and the
// gap's close unless the stream itself is in one. Nothing published can
// come between: both are queued under the Hub's lock.
func (h *Hub) resync(s *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.behind = false
	if h.closed || s.st.failed {
		return // the KindError that ends it is queued
	}
	s.queue = append(s.queue, s.st.list(false))
	if !s.st.gap {
		s.queue = append(s.queue, Notice{Stream: s.st.name, Key: s.st.key, Recv: time.Now(), Kind: KindGapClose, Relisted: true})
	}
}

// Close ends every subscription with a KindError and refuses
// later ones: the publisher stopped.
func (h *Hub) Close() {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for _, st := range h.streams {
		for s := range st.subs {
			s.push(Notice{Stream: st.name, Key: st.key, Recv: time.Now(), Kind: KindError, Err: errClosed})
		}
		st.subs = map[*subscriber]bool{}
	}
}

// subscriber is one subscription: the Notices queued for it, handed to
// notice by its own goroutine (run), with no lock held during the call.
type subscriber struct {
	ctx    context.Context
	notice func(Notice)
	hub    *Hub
	st     *shared
	wake   chan struct{}
	mu     sync.Mutex
	queue  []Notice
	// behind is set when the queue overflowed: its gap is queued, and
	// what is published is dropped until run re-lists it (Hub.resync).
	behind bool
}

// push queues n (called with the Hub's lock held: the queue's order is
// the order of publication) and wakes run.
func (s *subscriber) push(n Notice) {
	s.mu.Lock()
	switch {
	case n.Kind == KindError:
		s.queue = append(s.queue, n)
	case s.behind:
	case len(s.queue) >= queueLimit:
		s.behind = true
		s.queue = append(s.queue, Notice{Stream: n.Stream, Key: n.Key, Recv: time.Now(), Kind: KindGapOpen,
			Reason: fmt.Sprintf("this reader fell %d notices behind the shared watch", queueLimit)})
	default:
		s.queue = append(s.queue, n)
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// run hands the queued Notices to notice, in order, until a KindError was
// handed or ctx ends; once the queue of a subscriber behind is empty, it
// asks the Hub to re-list.
func (s *subscriber) run() {
	for {
		s.mu.Lock()
		if len(s.queue) == 0 {
			behind := s.behind
			s.mu.Unlock()
			if behind {
				s.hub.resync(s)
				continue
			}
			select {
			case <-s.wake:
			case <-s.ctx.Done():
				return
			}
			continue
		}
		n := s.queue[0]
		s.queue[0] = Notice{}
		s.queue = s.queue[1:]
		s.mu.Unlock()
		if s.ctx.Err() != nil {
			return
		}
		s.notice(n)
		if n.Kind == KindError {
			return
		}
	}
}
