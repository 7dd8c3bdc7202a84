package nodewatch

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// A node updated while it drains (its conditions, here) reads kured's lock
// once per change of its marks, not once per update; a schedulable node
// never; and the lock names kured once the node is cordoned.
func TestNodeSeenReadsKuredOncePerMarks(t *testing.T) {
	kured := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "kured",
		Annotations: map[string]string{kuredLockAnnotation: `{"nodeID":"w-1"}`}}}
	client := fake.NewClientset(kured)
	f := newFollower(Config{Client: client}, []string{"w-1"})
	reads := func() int {
		n := 0
		for _, a := range client.Actions() {
			if a.GetVerb() == "get" && a.GetResource().Resource == "daemonsets" {
				n++
			}
		}
		return n
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "w-1"}}
	ctx := context.Background()
	f.nodeSeen(ctx, node)
	if got := reads(); got != 0 {
		t.Fatalf("a schedulable node: %d reads of kured's DaemonSet, want 0", got)
	}
	node = node.DeepCopy()
	node.Spec.Unschedulable = true
	for i := range 5 {
		n := node.DeepCopy()
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Reason: string(rune('a' + i))}}
		f.nodeSeen(ctx, n)
	}
	if got := reads(); got != 1 {
		t.Errorf("a cordoned node updated 5 times: %d reads of kured's DaemonSet, want 1", got)
	}
	if len(f.w.Drainers) != 1 || f.w.Drainers[0].Name != "kured" {
		t.Errorf("drainers %+v, want kured once", f.w.Drainers)
	}
	node.Spec.Taints = []corev1.Taint{{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}}
	f.nodeSeen(ctx, node)
	if got := reads(); got != 2 || len(f.w.Drainers) != 1 {
		t.Errorf("a new taint: %d reads (want 2), drainers %d (want 1: the line did not change)", got, len(f.w.Drainers))
	}
}
