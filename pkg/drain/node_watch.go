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

	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

// nodeWatch follows the nodes of the cluster for a pool drain, from the
// preflight's list of them on (one listwatch.Stream resuming from that
// list's resourceVersion), so that each node's turn and its summary learn
// whether it was deleted and whether it is still cordoned without a read
// of their own. While the watch is in a gap, and once it ended (RBAC),
// every answer is read from the API server again.
type nodeWatch struct {
	client kubernetes.Interface
	mu     sync.Mutex
	nodes  map[string]*corev1.Node
	gone   map[string]bool
	// stale is a gap open or the stream ended: what it holds may be old.
	stale bool
}

// watchNodes follows the nodes from listed, read at resourceVersion rv,
// until ctx ends.
func watchNodes(ctx context.Context, client kubernetes.Interface, listed []corev1.Node, rv string) *nodeWatch {
	w := &nodeWatch{client: client, nodes: map[string]*corev1.Node{}, gone: map[string]bool{}, stale: rv == ""}
	for i := range listed {
		w.nodes[listed[i].Name] = &listed[i]
	}
	if rv == "" {
		return w
	}
	nodes := client.CoreV1().Nodes()
	s := &listwatch.Stream{Name: "nodes", ResourceVersion: rv, LW: clientListWatch(nodes.List, nodes.Watch)}
	go func() { _ = runStream(ctx, s, w.notice) }()
	return w
}

// notice applies one Notice of the nodes' stream.
func (w *nodeWatch) notice(n listwatch.Notice) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch n.Kind {
	case listwatch.KindError, listwatch.KindGapOpen:
		w.stale = true
	case listwatch.KindGapClose:
		w.stale = false
	case listwatch.KindList: // a re-list: what it lacks was deleted
		was := w.nodes
		w.nodes = map[string]*corev1.Node{}
		for _, o := range n.List {
			if node, ok := o.(*corev1.Node); ok {
				w.nodes[node.Name] = node
				delete(w.gone, node.Name)
			}
		}
		for name := range was {
			if w.nodes[name] == nil {
				w.gone[name] = true
			}
		}
	case listwatch.KindEvent:
		w.take(n.Event)
	}
}

// take applies one watch event.
func (w *nodeWatch) take(ev *watch.Event) {
	n, ok := ev.Object.(*corev1.Node)
	switch {
	case !ok:
	case ev.Type == watch.Deleted:
		w.gone[n.Name] = true
		delete(w.nodes, n.Name)
	case ev.Type == watch.Added || ev.Type == watch.Modified:
		delete(w.gone, n.Name)
		w.nodes[n.Name] = n
	}
}

// deleted reports whether node was seen deleted or, while the watch is
// stale, is found deleted, read again now.
func (w *nodeWatch) deleted(node string) bool {
	w.mu.Lock()
	gone, ended := w.gone[node], w.stale
	w.mu.Unlock()
	if !ended {
		return gone
	}
	return readDeleted(w.client, node)
}

// readDeleted reports whether node is found deleted, read again now.
func readDeleted(client kubernetes.Interface, node string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), readAgainTimeout)
	defer cancel()
	_, err := client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
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
	if n := w.nodes[node]; n != nil && !w.stale && n.Spec.Unschedulable {
		return n
	}
	return nil
}

// latest returns node as the watch holds it (the preflight's read or a
// later event), nil when it saw the node deleted, fallback when it holds
// nothing: a cordon preconditioned on it meets fewer 409 Conflicts from
// the node's status updates since the preflight than one on the read.
func (w *nodeWatch) latest(node string, fallback *corev1.Node) *corev1.Node {
	w.mu.Lock()
	defer w.mu.Unlock()
	if n := w.nodes[node]; n != nil {
		return n
	}
	if w.gone[node] {
		return nil
	}
	return fallback
}

// readAgainTimeout bounds a read made once the drain ended (the command's
// context may be cancelled by then).
const readAgainTimeout = 15 * time.Second
