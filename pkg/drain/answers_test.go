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
// namespace's deletion removed it the pod counts as deleted by the
// namespace, with the one request that was really sent.
func TestNamespaceTerminatingBacksOffAndCountsTheNamespace(t *testing.T) {
	c := evictionAnswers(nsTerminating())
	tr := NewTracker([]corev1.Pod{*webA()}, nil)
	budgets := &budgetWatch{allowed: map[string]int32{"shop/web": 3}, wake: map[string]chan struct{}{}}
	base := libraryRetryDelay + 300*time.Millisecond
	client := newObservedClient(c, tr, Backoff{Base: base, Cap: base}, budgets, map[string]string{"shop/web-a": "shop/web"}, nil)

	if err := evict(context.Background(), client); !apierrors.IsForbidden(err) {
		t.Fatalf("eviction error = %v, want the 403 passed to the library", err)
	}
	if p := tr.Snapshot()[0]; p.State != StateNamespaceTerminating || p.Cause != "namespace shop is being terminated" {
		t.Fatalf("after 403: %+v", p)
	}
	start := time.Now()
	_ = evict(context.Background(), client)
	if waited := time.Since(start); waited < 250*time.Millisecond {
		t.Errorf("retry after %s, want the backoff (300ms past the library's own delay), not the budget's shortcut", waited)
	}
	_ = c.Tracker().Delete(schema.GroupVersionResource{Version: "v1", Resource: "pods"}, "shop", "web-a")
	if err := evict(context.Background(), client); !apierrors.IsNotFound(err) {
		t.Fatalf("eviction of a deleted pod = %v, want the 404 the library takes as gone", err)
	}
	p := tr.Snapshot()[0]
	if p.State != StateGone || p.GoneBy != GoneByNamespace || p.Attempts != 2 {
		t.Errorf("after the namespace deleted it: %+v, want gone by the namespace after 2 requests", p)
	}
}

// A pod a PDB refused that someone else deletes is "deleted by another
// client", not evicted; one whose eviction was accepted is "evicted".
func TestGoneByWhoRemovedThePod(t *testing.T) {
	c := evictionAnswers(pdbRefusal())
	tr := NewTracker([]corev1.Pod{*webA()}, nil)
	client := newObservedClient(c, tr, Backoff{Base: time.Millisecond, Cap: time.Millisecond}, nil, nil, nil)
	_ = evict(context.Background(), client)
	_ = c.Tracker().Delete(schema.GroupVersionResource{Version: "v1", Resource: "pods"}, "shop", "web-a")
	_ = evict(context.Background(), client)
	if p := tr.Snapshot()[0]; p.State != StateGone || p.GoneBy != GoneByOther || p.Attempts != 1 {
		t.Errorf("pod deleted by someone else: %+v, want gone, deleted by another client, 1 request", p)
	}

	tr = NewTracker([]corev1.Pod{*webA()}, nil)
	tr.accept("shop", "web-a", "")
	tr.set("shop", "web-a", StateGone, "")
	if p := tr.Snapshot()[0]; p.GoneBy != GoneByEviction {
		t.Errorf("accepted eviction: goneBy %q, want %q", p.GoneBy, GoneByEviction)
	}
}

// A pod already terminating (held by a finalizer) is not evicted again; the
// tracker says what it waits on.
func TestAlreadyTerminatingPodIsNotEvictedAgain(t *testing.T) {
	pod := webA()
	pod.DeletionTimestamp = &metav1.Time{Time: time.Now().Add(-time.Minute)}
	pod.Finalizers = []string{"example.com/hold"}
	c := evictionAnswers(nil)
	tr := NewTracker([]corev1.Pod{*pod}, nil)
	client := newObservedClient(c, tr, Backoff{Base: time.Millisecond, Cap: time.Millisecond}, nil, nil, nil)
	if err := evict(context.Background(), client); err != nil {
		t.Fatalf("evict = %v, want nil so that the library waits for the pod", err)
	}
	for _, a := range c.Actions() {
		if a.GetSubresource() == "eviction" {
			t.Errorf("an eviction was sent for a terminating pod")
		}
	}
	p := tr.Snapshot()[0]
	if p.State != StateTerminating || p.WaitsOn != "finalizer example.com/hold" || p.Attempts != 0 {
		t.Errorf("terminating pod: %+v", p)
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
	tr := NewTracker([]corev1.Pod{*webA()}, nil)
	since := metav1.Date(2026, 11, 30, 11, 0, 0, 0, time.UTC)
	budgets := &budgetWatch{allowed: map[string]int32{"shop/web": 0}, wake: map[string]chan struct{}{},
		disrupted: map[string]map[string]metav1.Time{"shop/web": {"web-a": since}}}
	client := newObservedClient(c, tr, Backoff{Base: time.Millisecond, Cap: time.Millisecond}, budgets, map[string]string{"shop/web-a": "shop/web"}, nil)
	_ = evict(context.Background(), client)
	want := "The disruption budget web needs 2 healthy pods and has 2 currently; the budget counts this pod as disrupted since 11:00:00Z"
	if p := tr.Snapshot()[0]; p.State != StateBlocked || !strings.HasPrefix(p.Cause, want) {
		t.Errorf("cause %q, want it to start with %q", p.Cause, want)
	}
}
