package drain

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/watchlist"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// watchListPods follows the pods of node with one request: a watch that
// first sends the pods there now as ADDED events, then a bookmark
// annotated k8s.io/initial-events-end, then the changes (a "watch list",
// sendInitialEvents; KEP-3157), where a list then a watch are two. Those
// first events are handed to take as one List, the changes as Events. It
// returns true when the watch ran to ctx's end, false when it could not
// start, or stopped before (an API server without watch lists answers
// an error; a client that says it cannot, client-go's fake clientset, is
// not asked): the caller then lists and watches.
func (d *nodeRun) watchListPods(ctx context.Context, node string, take func(timeline.Notice)) bool {
	if watchlist.DoesClientNotSupportWatchListSemantics(d.Client) {
		return false // client-go's fake clientset: no initial events
	}
	yes := true
	w, err := d.Client.CoreV1().Pods(metav1.NamespaceAll).Watch(ctx, metav1.ListOptions{
		FieldSelector:        fields.OneTermEqualSelector("spec.nodeName", node).String(),
		SendInitialEvents:    &yes,
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		AllowWatchBookmarks:  true,
	})
	if err != nil {
		return false
	}
	defer w.Stop()
	var initial []runtime.Object
	listed := false
	for {
		select {
		case <-ctx.Done():
			return true
		case ev, ok := <-w.ResultChan():
			if !ok || ev.Type == watch.Error {
				return ctx.Err() != nil
			}
			pod, isPod := ev.Object.(*corev1.Pod)
			if !isPod {
				continue
			}
			pod.ManagedFields = nil // never read here; a third of a pod's size
			switch {
			case ev.Type == watch.Bookmark && !listed && pod.Annotations[metav1.InitialEventsAnnotationKey] == "true":
				listed = true
				take(timeline.Notice{Recv: time.Now(), Listed: true, Initial: true, List: initial})
				initial = nil
			case ev.Type == watch.Bookmark:
			case !listed:
				initial = append(initial, pod)
			default:
				take(timeline.Notice{Recv: time.Now(), Event: &ev})
			}
		}
	}
}
