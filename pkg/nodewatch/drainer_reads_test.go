package nodewatch

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// A node updated while it drains (its conditions, here) reads kured's lock
// once per change of its marks, not once per update; a schedulable node
// never; and the lock, found on whatever DaemonSet carries it, names kured
// once the node is cordoned.
func TestNodeSeenReadsKuredOncePerMarks(t *testing.T) {
	// A Helm release's name and namespace, not kured's defaults.
	kured := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "reboots", Name: "nightly-kured",
		Annotations: map[string]string{kuredLockAnnotation: `{"nodeID":"w-1"}`}}}
	client := fake.NewClientset(kured)
	f := newFollower(Config{Client: client}, []string{"w-1"})
	reads := func() int {
		n := 0
		for _, a := range client.Actions() {
			if (a.GetVerb() == "get" || a.GetVerb() == "list") && a.GetResource().Resource == "daemonsets" {
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
	if len(f.w.Drainers) != 1 || !strings.Contains(f.w.Drainers[0].String(), "drained by kured (the weave.works/kured-node-lock lock on DaemonSet reboots/nightly-kured names this node)") {
		t.Errorf("drainers %+v, want kured once, its DaemonSet named", f.w.Drainers)
	}
	node.Spec.Taints = []corev1.Taint{{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}}
	f.nodeSeen(ctx, node)
	if got := reads(); got != 2 || len(f.w.Drainers) != 1 {
		t.Errorf("a new taint: %d reads (want 2), drainers %d (want 1: the line did not change)", got, len(f.w.Drainers))
	}
}

// drain node --watch: a node the watch saw schedulable, then cordoned with
// no drainer's mark by the drain of the same process, is "cordoned by this
// drain", and stays so when the node controller's taint follows; a node
// cordoned before, or by another client, is still someone's.
func TestNodeSeenNamesTheCordonOfThisDrain(t *testing.T) {
	ctx := context.Background()
	ours := map[string]bool{"w-1": true}
	f := newFollower(Config{Client: fake.NewClientset(), CordonedHere: func(node string) (string, bool) {
		return "--timeout 30s from the node's turn", ours[node]
	}}, []string{"w-1", "w-2", "w-3"})
	for _, name := range []string{"w-1", "w-2"} {
		f.nodeSeen(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}})
	}
	before := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "w-3"}, Spec: corev1.NodeSpec{Unschedulable: true}}
	f.nodeSeen(ctx, before)
	for _, name := range []string{"w-1", "w-2"} {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{Unschedulable: true}}
		f.nodeSeen(ctx, n)
		n = n.DeepCopy()
		n.Spec.Taints = []corev1.Taint{{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}}
		f.nodeSeen(ctx, n)
	}
	want := []string{
		"node w-3: cordoned by someone (no drainer's marks); deadline: unknown",
		"node w-1: cordoned by this drain; deadline: --timeout 30s from the node's turn",
		"node w-2: cordoned by someone (no drainer's marks); deadline: unknown",
	}
	if strings.Join(f.w.Notes, "\n") != strings.Join(want, "\n") {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(f.w.Notes, "\n"), strings.Join(want, "\n"))
	}
}
