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
)

// nodePod is pod name of namespace shop on node n1.
func nodePod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, UID: types.UID("uid-" + name)},
		Spec: corev1.PodSpec{NodeName: "n1"}}
}

// watchedCluster is a fake cluster holding pods a and b whose pod watches
// are the returned channel's watchers, in order, and whose lists after the
// first fail (the API server unreachable) until release is closed.
func watchedCluster(t *testing.T) (*fake.Clientset, chan *watch.FakeWatcher, chan struct{}) {
	t.Helper()
	cs := fake.NewClientset(nodePod("a"), nodePod("b"))
	watchers := make(chan *watch.FakeWatcher, 2)
	release := make(chan struct{})
	lists := 0
	cs.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		lists++
		select {
		case <-release:
		default:
			if lists > 1 {
				return true, nil, errors.New("connection refused")
			}
		}
		return false, nil, nil
	})
	cs.PrependWatchReactor("pods", func(k8stesting.Action) (bool, watch.Interface, error) {
		w := watch.NewFakeWithChanSize(10, false)
		watchers <- w
		return true, w, nil
	})
	return cs, watchers, release
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

// The library's wait for an evicted pod reads it once a second: a pod the
// node's watch held and saw deleted is gone without a GET; a pod the watch
// never held is read from the API server; during a gap in the watch
// (ended, not yet listed again) every read goes to the server, which still
// holds the pod the watch saw deleted: a gap never turns into "gone".
func TestNodePodsAnswerOnlyWhatTheWatchSaw(t *testing.T) {
	cs, watchers, release := watchedCluster(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pods := watchNodePods(ctx, cs, "n1")
	c := newObservedClient(cs, NewTracker(nil, nil), Backoff{Base: time.Millisecond, Cap: time.Millisecond}, nil, nil, nil).(*observedClient)
	c.obs.pods = pods
	get := func(name string) (*corev1.Pod, error) {
		return c.CoreV1().Pods("shop").Get(ctx, name, metav1.GetOptions{})
	}
	w := <-watchers
	eventually(t, "the first list", func() bool { _, _, known := pods.lookup("shop", "b"); return known })

	w.Delete(nodePod("a"))
	eventually(t, "a's DELETED event", func() bool { _, gone, _ := pods.lookup("shop", "a"); return gone })
	if _, err := get("a"); !apierrors.IsNotFound(err) {
		t.Errorf("a, deleted as the watch saw: %v, want NotFound", err)
	}
	if p, err := get("b"); err != nil || p.UID != "uid-b" {
		t.Errorf("b, held by the watch: %v %v, want the pod", p, err)
	}
	if n := podGets(cs); n != 0 {
		t.Errorf("%d GETs sent for pods the watch answers, want 0", n)
	}
	if err := cs.Tracker().Add(nodePod("c")); err != nil {
		t.Fatal(err)
	}
	if p, err := get("c"); err != nil || p.UID != "uid-c" {
		t.Errorf("c, never delivered by the watch: %v %v, want the server's pod", p, err)
	}
	if n := podGets(cs); n != 1 {
		t.Errorf("%d GETs for a pod the watch never held, want 1", n)
	}

	w.Stop() // the watch ends; the lists after it fail until release
	eventually(t, "the gap", func() bool { _, _, known := pods.lookup("shop", "b"); return !known })
	if p, err := get("a"); err != nil || p.UID != "uid-a" {
		t.Errorf("a during the gap: %v %v, want the server's answer (it still holds a)", p, err)
	}
	if n := podGets(cs); n != 2 {
		t.Errorf("%d GETs after a read during the gap, want 2", n)
	}
	close(release)
	<-watchers
	eventually(t, "the list after the gap", func() bool { _, _, known := pods.lookup("shop", "b"); return known })
	if _, gone, _ := pods.lookup("shop", "a"); gone {
		t.Errorf("a is gone after a list that holds it")
	}
}
