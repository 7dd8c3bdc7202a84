package drain

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

// statefulPod is pod web-0 of StatefulSet web on node n1 with uid.
func statefulPod(uid types.UID) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-0", UID: uid,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "web", UID: "sts", Controller: ptr.To(true)}}},
		Spec:   corev1.PodSpec{NodeName: "n1"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
}

// recreated returns a tracker that started with web-0 (uid "old", our
// eviction accepted, not yet seen gone) and a cluster where the
// StatefulSet has recreated web-0 (uid "new") on the cordoned node n1.
func recreated(t *testing.T) (*Drainer, *podTracker, *fake.Clientset) {
	t.Helper()
	tracker := newTracker([]corev1.Pod{*statefulPod("old")}, nil)
	tracker.attempt("shop", "web-0")
	tracker.accept("shop", "web-0", "")
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Spec: corev1.NodeSpec{Unschedulable: true}}
	cs := fake.NewClientset(node, statefulPod("new"))
	return &Drainer{Client: cs, Flags: preflight.Flags{GracePeriodSeconds: -1}}, tracker, cs
}

// A pod recreated under the name of one the drain started with is another
// pod: at the end the old one counts as gone and the new one as a new pod
// on the node, by UID, not by name.
func TestRecreatedPodIsNotTheSamePod(t *testing.T) {
	d, tracker, _ := recreated(t)
	ctx := context.Background()
	n := d.newRun().node()
	n.refreshGone(ctx, tracker)
	if got := tracker.snapshot()[0]; got.State != StateGone || got.GoneBy != GoneByEviction {
		t.Errorf("web-0 (old uid) %s by %q, want gone by %q: a new pod holds its name", got.State, got.GoneBy, GoneByEviction)
	}
	after := n.readAfter(ctx, "n1", tracker, nil)
	if !after.Known || len(after.NewPods) != 1 || after.NewPods[0] != "shop/web-0" {
		t.Errorf("after %+v, want web-0 (new uid) as a new pod on the node", after)
	}
	if !after.disturbed(false) {
		t.Errorf("a recreated pod on the node does not make the drain undone")
	}
}

// The watch delivers a new pod under the name (a new UID) while the
// drain's pod waits for a retry: the drain's pod is gone and the new one is
// not evicted.
func TestRecreatedPodIsNotEvicted(t *testing.T) {
	cs := evictionAnswers(pdbRefusal())
	e := testEvictor(cs, Backoff{Base: time.Hour, Cap: time.Hour}, statefulPod("old"))
	go func() {
		eventually(t, "the refusal", func() bool { return e.tracker.snapshot()[0].State == StateBlocked })
		e.pods.notice(listwatch.Notice{Kind: listwatch.KindEvent, Event: &watch.Event{Type: watch.Deleted, Object: statefulPod("old")}})
		e.pods.notice(listwatch.Notice{Kind: listwatch.KindEvent, Event: &watch.Event{Type: watch.Added, Object: statefulPod("new")}})
	}()
	if err := e.evictAll(context.Background(), []corev1.Pod{*statefulPod("old")}); err != nil {
		t.Fatalf("evictAll: %v", err)
	}
	if n := evictions(cs); n != 1 {
		t.Errorf("%d evictions sent, want the one refused: never one for the recreated pod", n)
	}
	if got := e.tracker.snapshot()[0]; got.State != StateGone || got.GoneBy != GoneByOther {
		t.Errorf("web-0 (old uid) %s by %q, want gone by another client", got.State, got.GoneBy)
	}
}
