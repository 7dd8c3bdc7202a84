package drain

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
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
func recreated(t *testing.T) (*Drainer, *Tracker, *fake.Clientset) {
	t.Helper()
	tracker := NewTracker([]corev1.Pod{*statefulPod("old")}, nil)
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
	if got := tracker.Snapshot()[0]; got.State != StateGone || got.GoneBy != GoneByEviction {
		t.Errorf("web-0 (old uid) %s by %q, want gone by %q: a new pod holds its name", got.State, got.GoneBy, GoneByEviction)
	}
	after := n.readAfter(ctx, n.helper(ctx, tracker, nil, nil), "n1", tracker)
	if !after.Known || len(after.NewPods) != 1 || after.NewPods[0] != "shop/web-0" {
		t.Errorf("after %+v, want web-0 (new uid) as a new pod on the node", after)
	}
	if !after.disturbed(false) {
		t.Errorf("a recreated pod on the node does not make the drain undone")
	}
}

// The same name read again before a retried eviction, holding a new pod:
// the drain's pod is gone and the new one is not evicted.
func TestRecreatedPodIsNotEvicted(t *testing.T) {
	_, tracker, cs := recreated(t)
	tracker.set("shop", "web-0", StateBlocked, "budget web")
	c := newObservedClient(cs, tracker, Backoff{Base: time.Millisecond, Cap: time.Millisecond}, nil, nil, nil).(*observedClient)
	c.obs.refused["shop/web-0"] = 1
	err := c.PolicyV1().Evictions("shop").Evict(context.Background(), &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-0"}})
	if !apierrors.IsNotFound(err) {
		t.Errorf("Evict returned %v, want NotFound (the library's sign that the pod is gone)", err)
	}
	for _, a := range cs.Actions() {
		if a.GetSubresource() == "eviction" {
			t.Errorf("an eviction was sent for the recreated pod: %v", a)
		}
	}
	if got := tracker.Snapshot()[0]; got.State != StateGone {
		t.Errorf("web-0 (old uid) %s, want gone", got.State)
	}
}
