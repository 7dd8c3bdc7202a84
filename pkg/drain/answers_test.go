package drain

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

// nsTerminating is the 403 the API server answers an eviction in a
// namespace being deleted.
func nsTerminating() error {
	err := apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "web-a",
		apierrors.NewBadRequest("unable to create new content in namespace shop because it is being terminated"))
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
		Type: corev1.NamespaceTerminatingCause, Message: "namespace shop is being terminated", Field: "metadata.namespace"})
	return err
}

func webA() *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-a"}}
}

// A 403 NamespaceTerminating: the pod is "namespace terminating", the retry
// waits the backoff even when its PDB allows disruptions, and once the
// namespace's deletion removed it (the watch saw it leave) the pod counts
// as deleted by the namespace, with the requests that were really sent.
func TestNamespaceTerminatingBacksOffAndCountsTheNamespace(t *testing.T) {
	c := evictionAnswers(nsTerminating())
	base := 300 * time.Millisecond
	e := testEvictor(c, Backoff{Base: base, Cap: base}, webA())
	e.budgets = newBudgetWatch()
	e.budgets.allowed["shop/web"] = 3
	e.pdbOf = map[string]string{"shop/web-a": "shop/web"}
	go func() {
		eventually(t, "a second request", func() bool { return evictions(c) >= 2 })
		e.pods.notice(listwatch.Notice{Kind: listwatch.KindEvent, Event: &watch.Event{Type: watch.Deleted, Object: webA()}})
	}()
	start := time.Now()
	if err := e.evictAll(context.Background(), []corev1.Pod{*webA()}); err != nil {
		t.Fatalf("evictAll: %v", err)
	}
	if waited := time.Since(start); waited < 250*time.Millisecond {
		t.Errorf("second request after %s, want the backoff (300ms), not the budget's shortcut", waited)
	}
	p := e.tracker.snapshot()[0]
	if p.State != StateGone || p.GoneBy != GoneByNamespace || p.Attempts != evictions(c) || p.Attempts < 2 {
		t.Errorf("after the namespace deleted it: %+v, want gone by the namespace, each of the %d requests counted", p, evictions(c))
	}
}

// A pod a PDB refused that someone else deletes is "deleted by another
// client", not evicted; one whose eviction was accepted is "evicted".
func TestGoneByWhoRemovedThePod(t *testing.T) {
	c := evictionAnswers(pdbRefusal())
	e := testEvictor(c, Backoff{Base: time.Hour, Cap: time.Hour}, webA())
	go func() {
		eventually(t, "the refusal", func() bool { return e.tracker.snapshot()[0].State == StateBlocked })
		e.pods.notice(listwatch.Notice{Kind: listwatch.KindEvent, Event: &watch.Event{Type: watch.Deleted, Object: webA()}})
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- e.evictAll(ctx, []corev1.Pod{*webA()}) }()
	eventually(t, "the pod gone", func() bool { return e.tracker.snapshot()[0].State == StateGone })
	if p := e.tracker.snapshot()[0]; p.GoneBy != GoneByOther || p.Attempts != 1 {
		t.Errorf("pod deleted by someone else: %+v, want gone, deleted by another client, 1 request", p)
	}
	cancel()
	<-done

	tr := newTracker([]corev1.Pod{*webA()}, nil)
	tr.accept("shop", "web-a", "")
	tr.set("shop", "web-a", StateGone, "")
	if p := tr.snapshot()[0]; p.GoneBy != GoneByEviction {
		t.Errorf("accepted eviction: goneBy %q, want %q", p.GoneBy, GoneByEviction)
	}
}

// A pod already terminating (held by a finalizer) is not evicted again; the
// tracker says what it waits on, and it is gone when the watch saw it go.
func TestAlreadyTerminatingPodIsNotEvictedAgain(t *testing.T) {
	pod := webA()
	pod.DeletionTimestamp = &metav1.Time{Time: time.Now().Add(-time.Minute)}
	pod.Finalizers = []string{"example.com/hold"}
	c := evictionAnswers(nil)
	e := testEvictor(c, Backoff{Base: time.Millisecond, Cap: time.Millisecond}, pod)
	go func() {
		eventually(t, "the pod waited for", func() bool { return e.tracker.snapshot()[0].State == StateTerminating })
		p := e.tracker.snapshot()[0]
		if p.WaitsOn != "finalizer example.com/hold" || p.Attempts != 0 {
			t.Errorf("terminating pod: %+v", p)
		}
		e.pods.notice(listwatch.Notice{Kind: listwatch.KindEvent, Event: &watch.Event{Type: watch.Deleted, Object: pod}})
	}()
	if err := e.evictAll(context.Background(), []corev1.Pod{*pod}); err != nil {
		t.Fatalf("evictAll = %v", err)
	}
	if n := evictions(c); n != 0 {
		t.Errorf("%d evictions sent for a terminating pod", n)
	}
	if p := e.tracker.snapshot()[0]; p.State != StateGone || p.GoneBy != GoneByOther {
		t.Errorf("terminating pod at the end: %+v, want gone by another client", p)
	}
}

func TestWaitsOn(t *testing.T) {
	now := time.Date(2026, 11, 30, 11, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *metav1.Time { return &metav1.Time{Time: now.Add(d)} }
	for _, c := range []struct {
		pod  corev1.Pod
		want string
	}{
		{corev1.Pod{}, ""},
		{corev1.Pod{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: at(time.Hour), Finalizers: []string{"a/b", "c/d"}}}, "finalizers a/b, c/d"},
		{corev1.Pod{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: at(30 * time.Second)}}, "its grace deadline 11:00:30Z (in 30s)"},
		{corev1.Pod{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: at(-90 * time.Second)}}, "the kubelet: its grace deadline passed 1m30s ago"},
	} {
		if got := waitsOn(&c.pod, now); got != c.want {
			t.Errorf("waitsOn = %q, want %q", got, c.want)
		}
	}
}

// A budget that lists the refused pod in status.disruptedPods (an admitted
// eviction whose delete was lost) is named in the cause.
func TestRefusalNamesAPodTheBudgetCountsAsDisrupted(t *testing.T) {
	c := evictionAnswers(pdbRefusal())
	e := testEvictor(c, Backoff{Base: time.Hour, Cap: time.Hour}, webA())
	since := metav1.Date(2026, 11, 30, 11, 0, 0, 0, time.UTC)
	e.budgets = newBudgetWatch()
	e.budgets.allowed["shop/web"], e.budgets.disrupted["shop/web"] = 0, map[string]metav1.Time{"web-a": since}
	e.pdbOf = map[string]string{"shop/web-a": "shop/web"}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.evictAll(ctx, []corev1.Pod{*webA()}) }()
	eventually(t, "the refusal", func() bool { return e.tracker.snapshot()[0].State == StateBlocked })
	cancel()
	<-done
	want := "The disruption budget web needs 2 healthy pods and has 2 currently; the budget counts this pod as disrupted since 11:00:00Z"
	if p := e.tracker.snapshot()[0]; !strings.HasPrefix(p.Cause, want) {
		t.Errorf("cause %q, want it to start with %q", p.Cause, want)
	}
}
