package drain

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

// nodePod is pod name of namespace shop on node n1.
func nodePod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, UID: types.UID("uid-" + name)},
		Spec: corev1.PodSpec{NodeName: "n1"}}
}

// podGets counts the GETs of pods the fake cluster answered.
func podGets(cs *fake.Clientset) int {
	n := 0
	for _, a := range cs.Actions() {
		if a.GetVerb() == "get" && a.GetResource().Resource == "pods" {
			n++
		}
	}
	return n
}

// eventually waits up to 10 s for cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// isGone reports whether the watch saw pod leave.
func isGone(c *nodePods, pod *corev1.Pod) bool {
	_, gone, _, _ := c.current(pod)
	return gone
}

// A pod is gone only when the watch saw that very pod leave: a DELETED
// event, a list after the drain's without it, another pod (a new UID)
// under its name. A gap (the watch lost until it resumed or listed again)
// never turns into gone, and a shared watch's replayed list, which may
// lag behind the drain's list, does not either.
func TestNodePodsGoneOnlyWhenTheWatchSawItLeave(t *testing.T) {
	a, b, c, d := nodePod("a"), nodePod("b"), nodePod("c"), nodePod("d")
	pods := newNodePods([]corev1.Pod{*a, *b, *c, *d})
	pods.notice(listwatch.Notice{Kind: listwatch.KindList, Initial: true, List: []runtime.Object{a, b, c}})
	if !isGone(pods, d) {
		t.Errorf("d, listed by the drain and absent from the watch's later list, is not gone")
	}
	pods.notice(listwatch.Notice{Kind: listwatch.KindEvent, Event: &watch.Event{Type: watch.Deleted, Object: a}})
	if !isGone(pods, a) || isGone(pods, b) {
		t.Errorf("a deleted: gone %v; b held: gone %v", isGone(pods, a), isGone(pods, b))
	}
	pods.notice(listwatch.Notice{Kind: listwatch.KindGapOpen, Reason: "watch connection closed"})
	if isGone(pods, b) {
		t.Errorf("b gone during a gap")
	}
	pods.notice(listwatch.Notice{Kind: listwatch.KindList, List: []runtime.Object{c}})
	pods.notice(listwatch.Notice{Kind: listwatch.KindGapClose, Relisted: true})
	if !isGone(pods, b) || isGone(pods, c) {
		t.Errorf("after a relist without b: b gone %v, c (listed) gone %v", isGone(pods, b), isGone(pods, c))
	}
	newC := nodePod("c")
	newC.UID = "uid-c-2"
	pods.notice(listwatch.Notice{Kind: listwatch.KindEvent, Event: &watch.Event{Type: watch.Added, Object: newC}})
	if !isGone(pods, c) || isGone(pods, newC) {
		t.Errorf("a new pod under c's name: the old c gone %v, the new one gone %v", isGone(pods, c), isGone(pods, newC))
	}

	shared := newNodePods([]corev1.Pod{*a, *b})
	shared.replays = true
	shared.notice(listwatch.Notice{Kind: listwatch.KindList, Initial: true, List: []runtime.Object{a}})
	if isGone(shared, b) {
		t.Errorf("b, missing from a shared watch's replay, is gone")
	}
	shared.notice(listwatch.Notice{Kind: listwatch.KindEvent, Event: &watch.Event{Type: watch.Deleted, Object: b}})
	if !isGone(shared, b) {
		t.Errorf("b deleted after the replay is not gone")
	}
}

// The latest version delivered is what the drain holds of a pod: found
// terminating there, it is not evicted again.
func TestNodePodsHoldTheLatestVersion(t *testing.T) {
	a := nodePod("a")
	pods := newNodePods([]corev1.Pod{*a})
	deleted := a.DeepCopy()
	deleted.ResourceVersion, deleted.DeletionTimestamp = "7", &metav1.Time{Time: time.Now()}
	_, _, _, changed := pods.current(a)
	pods.notice(listwatch.Notice{Kind: listwatch.KindEvent, Event: &watch.Event{Type: watch.Modified, Object: deleted}})
	select {
	case <-changed:
	default:
		t.Errorf("a change of the pod did not wake its waiter")
	}
	if got, _, _, _ := pods.current(a); got.ResourceVersion != "7" || got.DeletionTimestamp == nil {
		t.Errorf("current %+v, want the version the watch delivered", got.ObjectMeta)
	}
	pods.notice(listwatch.Notice{Kind: listwatch.KindError, Err: apierrors.NewForbidden(corev1.Resource("pods"), "", errors.New("RBAC"))})
	if _, _, failed, _ := pods.current(a); !apierrors.IsForbidden(failed) {
		t.Errorf("failed %v after a forbidden watch, want it", failed)
	}
}

// followPods over the fake cluster: its own listwatch.Stream lists the
// node's pods and watches them; a pod it saw deleted is gone without a GET.
func TestNodePodsFollowTheirOwnStream(t *testing.T) {
	cs := fake.NewClientset(nodePod("a"), nodePod("b"))
	cs.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		// The fake's lists carry no resourceVersion, which RetryWatcher needs.
		list, err := cs.Tracker().List(corev1.SchemeGroupVersion.WithResource("pods"), corev1.SchemeGroupVersion.WithKind("Pod"), "")
		if err == nil {
			list.(*corev1.PodList).ResourceVersion = "1"
		}
		return true, list, err
	})
	watchers := make(chan *watch.FakeWatcher, 1)
	cs.PrependWatchReactor("pods", func(k8stesting.Action) (bool, watch.Interface, error) {
		w := watch.NewFakeWithChanSize(10, false)
		watchers <- w
		return true, w, nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	nr := &nodeRun{run: &run{Drainer: &Drainer{Client: cs, Backoff: Backoff{Base: time.Millisecond, Cap: time.Millisecond}}}}
	pods := nr.followPods(ctx, "n1", []corev1.Pod{*nodePod("a"), *nodePod("b")})
	w := <-watchers
	gone := nodePod("a")
	gone.ResourceVersion = "2"
	w.Delete(gone)
	eventually(t, "a's DELETED event", func() bool { return isGone(pods, nodePod("a")) })
	if isGone(pods, nodePod("b")) {
		t.Errorf("b gone, never deleted")
	}
	if n := podGets(cs); n != 0 {
		t.Errorf("%d GETs, want 0", n)
	}
}
