package main

import (
	"context"
	"errors"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

// sharedWatches hands the node watch's streams of each node's pods and of
// the budgets (nodewatch.Config.Tap) to the drain (drain.Events.SharedWatch),
// so that `drain node --watch` opens one watch of each, not two. The drain
// subscribes late (a node's pods at its turn): each stream keeps what it
// holds, to start a subscriber with a List of it, and its gap state, so
// that a gap seen by the node watch is seen by the drain.
type sharedWatches struct {
	mu      sync.Mutex
	streams map[string]*sharedStream // by node; "" the budgets
	ended   bool
	next    int
}

// sharedStream is one stream's objects as its Notices left them.
type sharedStream struct {
	name        string
	listed, gap bool
	failed      bool
	objs        cache.Store
	subs        map[int]func(listwatch.Notice)
}

// newSharedWatches shares the pods' streams of nodes and the budgets'.
func newSharedWatches(nodes []string) *sharedWatches {
	s := &sharedWatches{streams: map[string]*sharedStream{}}
	for _, n := range append(nodes, "") {
		s.streams[n] = &sharedStream{objs: cache.NewStore(cache.MetaNamespaceKeyFunc), subs: map[int]func(listwatch.Notice){}}
	}
	return s
}

// tap takes a Notice of the node watch's stream of node ("" the budgets)
// and hands it to the subscribers.
func (s *sharedWatches) tap(node string, n listwatch.Notice) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.streams[node]
	if s.ended || st == nil {
		return
	}
	st.take(n)
	for _, sub := range st.subs {
		sub(n)
	}
}

func (st *sharedStream) take(n listwatch.Notice) {
	st.name = n.Stream
	switch {
	case n.Kind == listwatch.KindError:
		st.failed = true
	case n.Kind == listwatch.KindGapOpen:
		st.gap = true
	case n.Kind == listwatch.KindGapClose:
		st.gap = false
	case n.Kind == listwatch.KindList:
		list := make([]any, len(n.List))
		for i, o := range n.List {
			list[i] = o
		}
		_ = st.objs.Replace(list, "")
		st.listed = true
	case n.Kind == listwatch.KindEvent && (n.Event.Type == watch.Added || n.Event.Type == watch.Modified):
		_ = st.objs.Update(n.Event.Object)
	case n.Kind == listwatch.KindEvent && n.Event.Type == watch.Deleted:
		_ = st.objs.Delete(n.Event.Object)
	}
}

// subscribe is drain.Events.SharedWatch: notice gets the stream of node
// ("" the budgets) from what it holds now until ctx ends. False when the
// node watch does not run that stream, it failed, or it ended.
func (s *sharedWatches) subscribe(ctx context.Context, node string, notice func(listwatch.Notice)) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.streams[node]
	if s.ended || st == nil || st.failed {
		return false
	}
	if st.listed {
		var list []runtime.Object
		for _, o := range st.objs.List() {
			list = append(list, o.(runtime.Object))
		}
		notice(listwatch.Notice{Stream: st.name, Recv: time.Now(), List: list, Kind: listwatch.KindList, Initial: true})
		if st.gap {
			notice(listwatch.Notice{Stream: st.name, Recv: time.Now(), Kind: listwatch.KindGapOpen, Reason: "the shared watch is in a gap"})
		}
	}
	id := s.next
	s.next++
	st.subs[id] = notice
	context.AfterFunc(ctx, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(st.subs, id)
	})
	return true
}

// errWatchEnded ends the drain's share of a stream once the node watch
// stopped.
var errWatchEnded = errors.New("the node watch ended")

// end tells every subscriber that the node watch stopped: from then on
// the drain reads the API server, and paces by the Eviction API alone.
func (s *sharedWatches) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended = true
	for _, st := range s.streams {
		for id, sub := range st.subs {
			sub(listwatch.Notice{Stream: st.name, Recv: time.Now(), Kind: listwatch.KindError, Err: errWatchEnded})
			delete(st.subs, id)
		}
	}
}
