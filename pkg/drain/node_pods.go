package drain

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/watchlist"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// nodePods follows the pods of one node from the Notices of one
// listwatch.Stream (a list, then a watch with fieldSelector spec.nodeName):
// it is how the drain learns that a pod it evicts is gone, and the latest
// version of each pod, without reading any pod by itself. It starts with
// the pods the drain listed (seeded) and says a pod is gone only when the
// watch saw that very pod (by UID) leave, never across a gap nor from the
// list a shared watch (Drainer.Watches) replays first. The rules are
// docs/drain.md's ("The eviction engine", step 4).
type nodePods struct {
	mu sync.Mutex
	// pods holds "namespace/name" -> the version last delivered (or listed
	// by the drain, until the watch delivers one).
	pods map[string]*corev1.Pod
	// gone holds the pods seen to leave, by goneKey.
	gone map[string]bool
	// wake holds, per pod, a channel closed (and dropped) at its next
	// change; one per pod, so that a change wakes only its own waiter.
	wake map[string]chan struct{}
	// failed is the error that ended the watch for good (RBAC); nil while
	// it runs or retries.
	failed error
	// replays is true until a shared watch's first list, which is not
	// taken as a list after the drain's.
	replays bool
	// listed is true once a list came; inGap while a gap is open (the
	// watch may have missed changes).
	listed, inGap bool
	// settled is closed when listed first turns true or the watch fails
	// for good: what waitHeld waits on.
	settled     chan struct{}
	settledOnce sync.Once
}

// goneKey is the key of one pod object: its name and UID.
func goneKey(pod *corev1.Pod) string { return podKey(pod) + "\x00" + string(pod.UID) }

// newNodePods starts from the pods the drain listed.
func newNodePods(listed []corev1.Pod) *nodePods {
	c := &nodePods{pods: map[string]*corev1.Pod{}, gone: map[string]bool{}, wake: map[string]chan struct{}{}, settled: make(chan struct{})}
	for i := range listed {
		c.pods[podKey(&listed[i])] = &listed[i]
	}
	return c
}

// followPods follows the pods of node, starting from listed, until ctx
// ends: from the watch Drainer.Watches shares when it holds one (and from
// a stream of its own once that watch ended early), else from a stream of
// its own.
func (d *nodeRun) followPods(ctx context.Context, node string, listed []corev1.Pod) *nodePods {
	c := newNodePods(listed)
	c.replays = true
	var own sync.Once
	shared := func(n listwatch.Notice) {
		c.notice(n)
		if n.Kind == listwatch.KindError {
			own.Do(func() { go d.ownPodStream(ctx, node, c) })
		}
	}
	if !d.Watches.Subscribe(ctx, listwatch.PodsOnNode(node), shared) {
		own.Do(func() { go d.ownPodStream(ctx, node, c) })
	}
	return c
}

// ownPodStream feeds c from a stream of the pods of node of its own (a
// watch list: one request) until ctx ends, started again (after the backoff) when its first list fails:
// the API server may be restarting. RBAC's refusal ends it.
func (d *nodeRun) ownPodStream(ctx context.Context, node string, c *nodePods) {
	c.mu.Lock()
	c.replays = false
	c.mu.Unlock()
	s := &listwatch.Stream{Name: timeline.StreamPods + " on " + node, Key: listwatch.PodsOnNode(node), LW: podsOnNode(d.Client, node),
		WatchList: !watchlist.DoesClientNotSupportWatchListSemantics(d.Client)}
	for n := 1; ctx.Err() == nil; n++ {
		err := runStream(ctx, s, c.notice)
		if err == nil || apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) || !sleep(ctx, d.Backoff.delay(n)) {
			return
		}
	}
}

// podsOnNode lists and watches the pods of node through the typed client
// (the fake clientset's too).
func podsOnNode(client kubernetes.Interface, node string) *cache.ListWatch {
	sel := listwatch.PodsOnNode(node).FieldSelector
	pods := client.CoreV1().Pods("")
	return clientListWatch(pods.List, pods.Watch, func(o *metav1.ListOptions) { o.FieldSelector = sel })
}

// notice takes one Notice of the node's pods' stream.
func (c *nodePods) notice(n listwatch.Notice) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch n.Kind {
	case listwatch.KindError:
		// The first list failed (the stream is started again) or the
		// watch is refused for good.
		if apierrors.IsForbidden(n.Err) || apierrors.IsUnauthorized(n.Err) {
			c.failed = n.Err
			c.settle()
		}
		c.wakeAll()
	case listwatch.KindList:
		c.replace(n.List, !c.replays)
		c.replays, c.listed, c.inGap = false, true, false
		c.settle()
	case listwatch.KindGapOpen:
		c.inGap = true
	case listwatch.KindGapClose:
		c.inGap = false
	case listwatch.KindEvent:
		c.apply(*n.Event)
	}
}

// replace takes a list as the store; with after (a list taken after the
// drain's), a pod held before and absent from it left. Called with c.mu
// held.
func (c *nodePods) replace(items []runtime.Object, after bool) {
	fresh := make(map[string]*corev1.Pod, len(items))
	for _, o := range items {
		if p, ok := o.(*corev1.Pod); ok {
			fresh[podKey(p)] = p
		}
	}
	for key, p := range c.pods {
		if _, ok := fresh[key]; !ok && after {
			c.gone[goneKey(p)] = true
		} else if !ok {
			fresh[key] = p // not delivered yet by a lagging shared watch
		}
	}
	c.pods = fresh
	c.wakeAll()
}

// apply takes one watch event (a bookmark carries no pod). A DELETED
// event is the end of that pod object, held before or not. Called with
// c.mu held.
func (c *nodePods) apply(ev watch.Event) {
	pod, ok := ev.Object.(*corev1.Pod)
	if !ok {
		return
	}
	key := podKey(pod)
	switch ev.Type {
	case watch.Added, watch.Modified:
		c.pods[key] = pod
	case watch.Deleted:
		c.gone[goneKey(pod)] = true
		if held, ok := c.pods[key]; ok && held.UID == pod.UID {
			delete(c.pods, key)
		}
	}
	if w, ok := c.wake[key]; ok {
		close(w)
		delete(c.wake, key)
	}
}

// wakeAll wakes every waiter. Called with c.mu held.
func (c *nodePods) wakeAll() {
	for key, w := range c.wake {
		close(w)
		delete(c.wake, key)
	}
}

// current returns the latest version of pod known (pod itself until the
// watch delivers one), whether the watch saw it leave, the error that
// ended the watch for good, and a channel closed at the pod's next change.
func (c *nodePods) current(pod *corev1.Pod) (latest *corev1.Pod, gone bool, failed error, changed <-chan struct{}) {
	key := podKey(pod)
	c.mu.Lock()
	defer c.mu.Unlock()
	w, ok := c.wake[key]
	if !ok {
		w = make(chan struct{})
		c.wake[key] = w
	}
	latest = pod
	if held, ok := c.pods[key]; ok {
		if pod.UID != "" && held.UID != pod.UID {
			// Another pod holds the name: ours went before it came.
			return pod, true, c.failed, w
		}
		latest = held
	}
	return latest, c.gone[goneKey(pod)], c.failed, w
}

// settle closes settled, once.
func (c *nodePods) settle() { c.settledOnce.Do(func() { close(c.settled) }) }

// waitHeld is held once the watch's first list came (or it failed for
// good), waiting at most limit for it: a node whose drain had nothing to
// evict can end before its watch list has, and its pods read from the
// watch cost no request where a list of them costs one.
func (c *nodePods) waitHeld(ctx context.Context, limit time.Duration) ([]*corev1.Pod, bool) {
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-c.settled:
	case <-t.C:
	case <-ctx.Done():
	}
	return c.held()
}

// held returns the pods the watch holds now, and false when it cannot
// tell: its first list has not come, it is in a gap, or it failed.
func (c *nodePods) held() ([]*corev1.Pod, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.listed || c.inGap || c.failed != nil {
		return nil, false
	}
	return slices.Collect(maps.Values(c.pods)), true
}
