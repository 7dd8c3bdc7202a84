package drain

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
)

// nodeWatch follows the nodes of the cluster for a pool drain, from the
// preflight's list of them on (one watch from its resourceVersion, resumed
// by client-go's RetryWatcher), so that each node's turn and its summary
// learn whether it was deleted and whether it is still cordoned without a
// read of their own. When the watch ends early (its resourceVersion
// expired, RBAC) every answer is read from the API server again.
type nodeWatch struct {
	client kubernetes.Interface
	mu     sync.Mutex
	nodes  map[string]*corev1.Node
	gone   map[string]bool
	ended  bool
}

// watchNodes follows the nodes from listed, read at resourceVersion rv,
// until ctx ends.
func watchNodes(ctx context.Context, client kubernetes.Interface, listed []corev1.Node, rv string) *nodeWatch {
	w := &nodeWatch{client: client, nodes: map[string]*corev1.Node{}, gone: map[string]bool{}}
	for i := range listed {
		w.nodes[listed[i].Name] = &listed[i]
	}
	lw := &cache.ListWatch{WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
		return client.CoreV1().Nodes().Watch(ctx, o)
	}}
	rw, err := watchtools.NewRetryWatcherWithContext(ctx, rv, lw)
	if err != nil {
		w.ended = true
		return w
	}
	go func() {
		defer rw.Stop()
		for ev := range rw.ResultChan() {
			if !w.take(ev) {
				return
			}
		}
		w.mu.Lock()
		w.ended = true // ctx ended: the watch holds the past
		w.mu.Unlock()
	}()
	return w
}

// take applies one event and reports whether the watch goes on.
func (w *nodeWatch) take(ev watch.Event) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, ok := ev.Object.(*corev1.Node)
	switch {
	case ev.Type == watch.Error:
		w.ended = true
		return false
	case !ok:
	case ev.Type == watch.Deleted:
		w.gone[n.Name] = true
		delete(w.nodes, n.Name)
	case ev.Type == watch.Added || ev.Type == watch.Modified:
		delete(w.gone, n.Name)
		w.nodes[n.Name] = n
	}
	return true
}

// deleted reports whether node was seen deleted or, when the watch ended,
// is found deleted, read again now.
func (w *nodeWatch) deleted(node string) bool {
	w.mu.Lock()
	gone, ended := w.gone[node], w.ended
	w.mu.Unlock()
	if !ended {
		return gone
	}
	ctx, cancel := context.WithTimeout(context.Background(), readAgainTimeout)
	defer cancel()
	_, err := w.client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	return apierrors.IsNotFound(err)
}

// cordoned returns node as the watch holds it when it shows the node
// cordoned, nil otherwise (then the caller reads it): "still cordoned"
// from the watch is as fresh as its last event, and "uncordoned" is worth a
// read of its own before the summary says another client undid the drain.
func (w *nodeWatch) cordoned(node string) *corev1.Node {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if n := w.nodes[node]; n != nil && !w.ended && n.Spec.Unschedulable {
		return n
	}
	return nil
}

// readAgainTimeout bounds a read made once the drain ended (the command's
// context may be cancelled by then).
const readAgainTimeout = 15 * time.Second
