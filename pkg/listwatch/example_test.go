package listwatch_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

// List then watch a namespace's pods, and see a lost connection reported
// as a gap that opens and closes rather than hidden, as `watch pod` marks
// it. A program passes cache.NewListWatchFromClient(client.CoreV1().
// RESTClient(), "pods", ns, fields.Everything()); here the List and the
// two watch connections are made in memory, the first closing after one
// event as a dropped connection does.
func ExampleStream() {
	pod := func(rv string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-0", ResourceVersion: rv}}
	}
	conns := make(chan *watch.FakeWatcher, 2)
	first, second := watch.NewFake(), watch.NewFake()
	conns <- first
	conns <- second
	lw := &cache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "10"}, Items: []corev1.Pod{*pod("10")}}, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
			return <-conns, nil
		},
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := make(chan listwatch.Notice)
	go (&listwatch.Stream{Name: "pods", LW: lw}).Run(ctx, out)

	show := func(n listwatch.Notice) {
		switch n.Kind {
		case listwatch.KindList:
			fmt.Println(n.Stream, "listed", len(n.List), "pod(s), first list:", n.Initial)
		case listwatch.KindEvent:
			fmt.Println(n.Stream, n.Event.Type, n.Event.Object.(*corev1.Pod).ResourceVersion)
		case listwatch.KindGapOpen:
			fmt.Println(n.Stream, "gap opens:", n.Reason)
		case listwatch.KindGapClose:
			fmt.Println(n.Stream, "gap closes, re-listed:", n.Relisted)
		case listwatch.KindError:
			fmt.Println(n.Stream, "failed:", n.Err)
		}
	}
	show(<-out)
	first.Modify(pod("11"))
	show(<-out)
	first.Stop() // the connection drops: the watch resumes from 11
	show(<-out)
	show(<-out)
	second.Modify(pod("12"))
	show(<-out)
	// Output:
	// pods listed 1 pod(s), first list: true
	// pods MODIFIED 11
	// pods gap opens: watch connection closed
	// pods gap closes, re-listed: false
	// pods MODIFIED 12
}
