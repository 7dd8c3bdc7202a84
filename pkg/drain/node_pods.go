package drain

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// nodePods follows the pods of one node with one list and one watch
// (fieldSelector spec.nodeName), so that the library's wait for each
// evicted pod's deletion (waitForDelete reads every pod once a second) is
// answered from what the watch delivered instead of one GET per pod per
// second. It answers only what it saw: a pod it holds is returned as the
// watch last delivered it, and a pod is gone only when it held that pod
// and saw it leave (a DELETED event, or a list after a gap without it).
// Before the first list, during a gap (the watch ended or failed, until
// the next list) and for a pod it never held, it does not answer and the
// caller reads the API server.
type nodePods struct {
	mu sync.Mutex
	// ready is true while the store reflects a list and an unbroken
	// watch after it.
	ready bool
	pods  map[string]*corev1.Pod // "namespace/name" -> last delivered
	// gone holds the pods held once and seen to leave since.
	gone map[string]bool
}

// nodePodsRetry bounds the wait before the list after a failed list or
// watch; it doubles from one second.
const nodePodsRetry = 30 * time.Second

// watchNodePods starts following the pods of node until ctx ends.
func watchNodePods(ctx context.Context, client kubernetes.Interface, node string) *nodePods {
	c := &nodePods{pods: map[string]*corev1.Pod{}, gone: map[string]bool{}}
	go c.run(ctx, client, fields.OneTermEqualSelector("spec.nodeName", node).String())
	return c
}

// run lists and watches until ctx ends, marking a gap between a watch's
// end and the next list.
func (c *nodePods) run(ctx context.Context, client kubernetes.Interface, selector string) {
	delay := time.Second
	for ctx.Err() == nil {
		if c.follow(ctx, client, selector) {
			delay = time.Second
		} else if !sleep(ctx, delay) {
			return
		} else {
			delay = min(2*delay, nodePodsRetry)
		}
	}
}

// follow lists the node's pods and watches from that list until the watch
// ends; it reports whether the watch delivered any event (a healthy watch
// that the server closed, relisted at once).
func (c *nodePods) follow(ctx context.Context, client kubernetes.Interface, selector string) bool {
	defer c.gap()
	list, err := client.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: selector})
	if err != nil {
		return false
	}
	w, err := client.CoreV1().Pods("").Watch(ctx, metav1.ListOptions{FieldSelector: selector,
		ResourceVersion: list.ResourceVersion, AllowWatchBookmarks: true})
	if err != nil {
		return false
	}
	defer w.Stop()
	c.replace(list.Items)
	delivered := false
	for ev := range w.ResultChan() {
		if !c.apply(ev) {
			return delivered
		}
		delivered = true
	}
	return delivered
}

// gap marks the store as not reflecting the server until the next list.
func (c *nodePods) gap() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ready = false
}

// replace takes a list as the store: a pod held before and absent from the
// list left during the gap.
func (c *nodePods) replace(items []corev1.Pod) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fresh := make(map[string]*corev1.Pod, len(items))
	for i := range items {
		fresh[items[i].Namespace+"/"+items[i].Name] = &items[i]
	}
	for key := range c.pods {
		if _, ok := fresh[key]; !ok {
			c.gone[key] = true
		}
	}
	c.pods, c.ready = fresh, true
}

// apply takes one watch event; false means the watch failed (an ERROR
// event, such as 410 Gone for a resourceVersion too old) and must relist.
func (c *nodePods) apply(ev watch.Event) bool {
	if ev.Type == watch.Error {
		return false
	}
	pod, ok := ev.Object.(*corev1.Pod)
	if !ok {
		return true // a bookmark carries no pod of ours
	}
	key := pod.Namespace + "/" + pod.Name
	c.mu.Lock()
	defer c.mu.Unlock()
	switch ev.Type {
	case watch.Added, watch.Modified:
		c.pods[key] = pod
	case watch.Deleted:
		if _, held := c.pods[key]; held {
			c.gone[key] = true
		}
		delete(c.pods, key)
	}
	return true
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
