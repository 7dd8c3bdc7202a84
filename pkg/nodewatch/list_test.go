package nodewatch

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// A List of one node's pods says nothing of another node's: the pods of
// the node listed first are not gone when the next node's List lacks them
// (the bench saw 40 of 50 running pods called "deleted" at the start of
// drain --watch). A later List of their own node that lacks them is.
func TestNodeListDoesNotDeleteOtherNodesPods(t *testing.T) {
	f := newFollower(Config{Client: fake.NewClientset()}, []string{"n1", "n2"})
	a, b := timelinetest.Pod(30, nil), timelinetest.Pod(30, nil)
	a.Spec.NodeName = "n1"
	b.UID, b.Name, b.Spec.NodeName = "uid-web-2", "web-2", "n2"
	list := func(node string, ms int64, pods ...runtime.Object) {
		f.listedNotice(context.Background(), listwatch.Notice{Stream: podStream(node), Recv: timelinetest.At(ms), Kind: listwatch.KindList, List: pods, Initial: ms == 0})
	}
	list("n1", 0, a)
	list("n2", 0, b)
	list("n2", 500, b)
	gone := func(name string) bool {
		for _, rec := range f.set.Recorders() {
			if rec.TL.Pod == name {
				for _, e := range rec.TL.Events {
					if e.Kind == timeline.KindPodGone {
						return true
					}
				}
			}
		}
		return false
	}
	if gone("web-1") || gone("web-2") {
		t.Fatalf("a running pod was called deleted by another node's List")
	}
	list("n1", 900)
	if !gone("web-1") {
		t.Errorf("web-1, missing from its own node's re-list, was not called deleted")
	}
	if gone("web-2") {
		t.Errorf("web-2 on n2 was called deleted by n1's re-list")
	}
}
