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

	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
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

// The library's wait for an evicted pod reads it once a second: a pod the
// node's watch held and saw deleted is gone without a GET; a pod the watch
// never held is read from the API server; during a gap in the watch
// (ended, not yet resumed or listed again) every read goes to the server,
// which still holds the pod the watch saw deleted: a gap never turns into
// "gone", and a list after it that holds the pod keeps it.
func TestNodePodsAnswerOnlyWhatTheWatchSaw(t *testing.T) {
	cs := fake.NewClientset(nodePod("a"), nodePod("b"))
	ctx := context.Background()
	pods := newNodePods()
	c := newObservedClient(cs, NewTracker(nil, nil), Backoff{Base: time.Millisecond, Cap: time.Millisecond}, nil, nil, nil).(*observedClient)
	c.obs.pods = pods
	get := func(name string) (*corev1.Pod, error) {
		return c.CoreV1().Pods("shop").Get(ctx, name, metav1.GetOptions{})
	}
	if p, err := get("b"); err != nil || p.UID != "uid-b" {
		t.Errorf("b before the first list: %v %v, want the server's pod", p, err)
	}
	if n := podGets(cs); n != 1 {
		t.Errorf("%d GETs before the first list, want 1", n)
	}
	pods.notice(timeline.Notice{Listed: true, Initial: true, List: []runtime.Object{nodePod("a"), nodePod("b")}})
	pods.notice(timeline.Notice{Event: &watch.Event{Type: watch.Deleted, Object: nodePod("a")}})
	if _, err := get("a"); !apierrors.IsNotFound(err) {
		t.Errorf("a, deleted as the watch saw: %v, want NotFound", err)
	}
	if p, err := get("b"); err != nil || p.UID != "uid-b" {
		t.Errorf("b, held by the watch: %v %v, want the pod", p, err)
	}
	if n := podGets(cs); n != 1 {
		t.Errorf("%d GETs sent for pods the watch answers, want 1 (before the list)", n)
	}
	if err := cs.Tracker().Add(nodePod("c")); err != nil {
		t.Fatal(err)
	}
	pods.notice(timeline.Notice{Event: &watch.Event{Type: watch.Deleted, Object: nodePod("c")}})
	if p, err := get("c"); err != nil || p.UID != "uid-c" {
		t.Errorf("c, never delivered by the watch, then a DELETED of it: %v %v, want the server's pod", p, err)
	}
	if n := podGets(cs); n != 2 {
		t.Errorf("%d GETs for a pod the watch never held, want 2", n)
	}

	for _, gap := range []struct {
		name string
		end  []timeline.Notice
	}{
		{"resumed", []timeline.Notice{{GapClose: true}}},
		{"relisted", []timeline.Notice{{Listed: true, List: []runtime.Object{nodePod("a"), nodePod("b")}}, {GapClose: true, Relisted: true}}},
	} {
		pods.notice(timeline.Notice{GapOpen: true, Reason: "watch connection closed"})
		gets := podGets(cs)
		if p, err := get("a"); err != nil || p.UID != "uid-a" {
			t.Errorf("%s: a during the gap: %v %v, want the server's answer (it still holds a)", gap.name, p, err)
		}
		if _, _, known := pods.lookup("shop", "b"); known {
			t.Errorf("%s: b is answered from the watch during the gap", gap.name)
		}
		if n := podGets(cs) - gets; n != 1 {
			t.Errorf("%s: %d GETs for a read during the gap, want 1", gap.name, n)
		}
		for _, n := range gap.end {
			pods.notice(n)
		}
		if _, _, known := pods.lookup("shop", "b"); !known {
			t.Errorf("%s: b not answered after the gap", gap.name)
		}
	}
	if _, gone, _ := pods.lookup("shop", "a"); gone {
		t.Errorf("a is gone after a list that holds it")
	}
	pods.notice(timeline.Notice{Err: errors.New("forbidden")})
	if _, _, known := pods.lookup("shop", "b"); known {
		t.Errorf("b answered after the stream failed")
	}
}

// followPods over the fake cluster: its own timeline.Stream lists the
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
	pods := (&nodeRun{run: &run{Drainer: &Drainer{Client: cs}}}).followPods(ctx, "n1")
	w := <-watchers
	eventually(t, "the first list", func() bool { _, _, known := pods.lookup("shop", "b"); return known })
	gone := nodePod("a")
	gone.ResourceVersion = "2"
	w.Delete(gone)
	eventually(t, "a's DELETED event", func() bool { _, g, _ := pods.lookup("shop", "a"); return g })
	if n := podGets(cs); n != 0 {
		t.Errorf("%d GETs, want 0", n)
	}
}
