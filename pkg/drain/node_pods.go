package drain

import (
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// nodePods follows the pods of one node from the Notices of one
// timeline.Stream (a list, then a watch with fieldSelector spec.nodeName),
// so that the library's wait for each evicted pod's deletion
// (waitForDelete reads every pod once a second) is answered from what the
// watch delivered instead of one GET per pod per second. It answers only
// what it saw: a pod it holds is returned as the watch last delivered it,
// and a pod is gone only when it held that pod and saw it leave (a DELETED
// event, or a list after a gap without it). Before the first list, during
// a gap (GapOpen until GapClose: the watch resumed from its last
// resourceVersion, or listed again), after the stream failed, and for a
// pod it never held, it does not answer and the caller reads the API
// server.
type nodePods struct {
	mu sync.Mutex
	// listed is true once a list was taken; ready while the store
	// reflects a list and the unbroken watch after it.
	listed, ready bool
	pods          map[string]*corev1.Pod // "namespace/name" -> last delivered
	// gone holds the pods held once and seen to leave since.
	gone map[string]bool
}

func newNodePods() *nodePods {
	return &nodePods{pods: map[string]*corev1.Pod{}, gone: map[string]bool{}}
}

// followPods follows the pods of node until ctx ends: from the watch that
// Events.SharedWatch hands over when it runs one, else from a stream of
// its own.
func (d *nodeRun) followPods(ctx context.Context, node string) *nodePods {
	c := newNodePods()
	if d.Events.SharedWatch != nil && d.Events.SharedWatch(ctx, node, c.notice) {
		return c
	}
	runStream(ctx, &timeline.Stream{Name: timeline.StreamPods + " on " + node, LW: podsOnNode(d.Client, node)}, c.notice)
	return c
}

// podsOnNode lists and watches the pods of node through the typed client
// (the fake clientset's too).
func podsOnNode(client kubernetes.Interface, node string) *cache.ListWatch {
	sel := fields.OneTermEqualSelector("spec.nodeName", node).String()
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.FieldSelector = sel
			return client.CoreV1().Pods("").List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = sel
			return client.CoreV1().Pods("").Watch(ctx, o)
		},
	}
}

// runStream runs s until ctx ends, handing each Notice to take in order.
func runStream(ctx context.Context, s *timeline.Stream, take func(timeline.Notice)) {
	ch := make(chan timeline.Notice)
	go s.Run(ctx, ch)
	go func() {
		for {
			select {
			case n := <-ch:
				take(n)
			case <-ctx.Done():
				return
			}
		}
	}()
}

// notice takes one Notice of the node's pods' stream.
func (c *nodePods) notice(n timeline.Notice) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case n.Err != nil || n.GapOpen:
		// Failed for good, or lost: stale until a list or a resume.
		c.ready = false
	case n.Listed:
		c.replace(n.List)
	case n.GapClose:
		// Resumed from the last resourceVersion (no event lost) or
		// relisted (the list came first).
		c.ready = c.listed
	case n.Event != nil:
		c.apply(*n.Event)
	}
}

// replace takes a list as the store: a pod held before and absent from the
// list left during the gap. Called with c.mu held.
func (c *nodePods) replace(items []runtime.Object) {
	fresh := make(map[string]*corev1.Pod, len(items))
	for _, o := range items {
		if p, ok := o.(*corev1.Pod); ok {
			fresh[p.Namespace+"/"+p.Name] = p
		}
	}
	for key := range c.pods {
		if _, ok := fresh[key]; !ok {
			c.gone[key] = true
		}
	}
	c.pods, c.listed, c.ready = fresh, true, true
}

// apply takes one watch event (a bookmark carries no pod of ours). Called
// with c.mu held.
func (c *nodePods) apply(ev watch.Event) {
	pod, ok := ev.Object.(*corev1.Pod)
	if !ok {
		return
	}
	key := pod.Namespace + "/" + pod.Name
	switch ev.Type {
	case watch.Added, watch.Modified:
		c.pods[key] = pod
	case watch.Deleted:
		if _, held := c.pods[key]; held {
			c.gone[key] = true
		}
		delete(c.pods, key)
	}
}

// lookup answers a read of pod namespace/name when the store can: the pod
// as last delivered, or gone for a pod seen to leave. known is false when
// the caller must read the API server (no list yet, a gap, a pod the store
// never held). A nil nodePods knows nothing.
func (c *nodePods) lookup(namespace, name string) (pod *corev1.Pod, gone, known bool) {
	if c == nil {
		return nil, false, false
	}
	key := namespace + "/" + name
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.ready {
		return nil, false, false
	}
	if p, ok := c.pods[key]; ok {
		return p.DeepCopy(), false, true
	}
	return nil, c.gone[key], c.gone[key]
}
