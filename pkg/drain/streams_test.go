package drain

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

func namedNode(name string, unschedulable bool) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{Unschedulable: unschedulable}}
}

// After a re-list, an object the new List lacks is handed on as DELETED,
// as an informer's handlers are told: a Deployment deleted during a gap
// still ends a rollout's wait.
func TestUntilEventsRelistDeletes(t *testing.T) {
	held := map[string]runtime.Object{}
	first := untilEvents(listwatch.Notice{Kind: listwatch.KindList, List: []runtime.Object{namedNode("a", false), namedNode("b", false)}}, held)
	if len(first) != 2 || first[0].Type != watch.Added {
		t.Fatalf("first List gave %v, want 2 ADDED", first)
	}
	again := untilEvents(listwatch.Notice{Kind: listwatch.KindList, List: []runtime.Object{namedNode("a", false)}}, held)
	if len(again) != 2 || again[1].Type != watch.Deleted || again[1].Object.(*corev1.Node).Name != "b" {
		t.Fatalf("re-list gave %v, want ADDED a and DELETED b", again)
	}
}

// The pool's node watch: a node missing from a re-list was deleted, and
// while a gap is open nothing it holds is trusted as "still cordoned".
func TestNodeWatchGapAndRelist(t *testing.T) {
	w := &nodeWatch{nodes: map[string]*corev1.Node{"a": namedNode("a", true), "b": namedNode("b", true)}, gone: map[string]bool{}}
	if w.cordoned("a") == nil {
		t.Fatal("a cordoned node in the watch is not reported cordoned")
	}
	w.notice(listwatch.Notice{Kind: listwatch.KindGapOpen})
	if w.cordoned("a") != nil {
		t.Fatal("during a gap the watch still answers 'cordoned' from what it held")
	}
	w.notice(listwatch.Notice{Kind: listwatch.KindList, List: []runtime.Object{namedNode("a", true)}})
	w.notice(listwatch.Notice{Kind: listwatch.KindGapClose, Relisted: true})
	if !w.gone["b"] || w.cordoned("a") == nil {
		t.Fatalf("after the re-list: gone %v, a cordoned %v; want b gone and a cordoned", w.gone, w.cordoned("a") != nil)
	}
}
