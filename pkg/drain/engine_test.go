package drain

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

// pdbRefusal is the 429 the eviction subresource answers (checkAndDecrement).
func pdbRefusal() error {
	err := apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
		Type: policyv1.DisruptionBudgetCause, Message: "The disruption budget web needs 2 healthy pods and has 2 currently"})
	return err
}

func TestBackoffDoublesUpToCap(t *testing.T) {
	b := Backoff{Base: time.Second, Cap: 5 * time.Second}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
	for i, w := range want {
		if got := b.delay(i + 1); got != w {
			t.Errorf("delay(%d) = %s, want %s", i+1, got, w)
		}
	}
}

// evictionAnswers returns a fake clientset holding pod shop/web-a whose
// evictions answer errs in turn, the last one from then on.
func evictionAnswers(errs ...error) *fake.Clientset {
	c := fake.NewClientset(webA())
	n := 0
	c.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "eviction" {
			return false, nil, nil
		}
		err := errs[min(n, len(errs)-1)]
		n++
		return true, nil, err
	})
	return c
}

// testEvictor is the evictor of pods on one node of client, its pod watch
// fed by the test (evictor.pods.notice), with a backoff of b.
func testEvictor(client kubernetes.Interface, b Backoff, pods ...*corev1.Pod) *evictor {
	var listed []corev1.Pod
	for _, p := range pods {
		listed = append(listed, *p)
	}
	return &evictor{client: client, flags: preflight.Flags{GracePeriodSeconds: -1}, backoff: b,
		tracker: newTracker(listed, nil), pods: newNodePods(listed), failures: &apiFailures{}}
}

// evictions counts the eviction requests the fake cluster received.
func evictions(cs *fake.Clientset) int {
	n := 0
	for _, a := range cs.Actions() {
		if a.GetSubresource() == "eviction" {
			n++
		}
	}
	return n
}

// goneLater delivers, once the pod's eviction was accepted, the DELETED
// event of pod to e's watch, as the node's pod watch would.
func goneLater(t *testing.T, e *evictor, pod *corev1.Pod) {
	t.Helper()
	go func() {
		eventually(t, "the eviction accepted", func() bool { return e.tracker.wasAccepted(podKey(pod)) })
		e.pods.notice(listwatch.Notice{Kind: listwatch.KindEvent, Event: &watch.Event{Type: watch.Deleted, Object: pod}})
	}()
}

// A 429 then an acceptance: the pod is blocked with the budget's cause,
// then terminating, and gone only once the watch saw it leave; no pod is
// read from the API server.
func TestEngineRefusalThenAcceptance(t *testing.T) {
	c := evictionAnswers(pdbRefusal(), nil)
	var changes []PodProgress
	e := testEvictor(c, Backoff{Base: time.Millisecond, Cap: 4 * time.Millisecond}, webA())
	e.tracker.onChange = func(p PodProgress) { changes = append(changes, p) }
	goneLater(t, e, webA())
	if err := e.evictAll(context.Background(), []corev1.Pod{*webA()}); err != nil {
		t.Fatalf("evictAll: %v", err)
	}
	p := e.tracker.snapshot()[0]
	if p.State != StateGone || p.GoneBy != GoneByEviction || p.Attempts != 2 {
		t.Errorf("after acceptance: %+v, want gone by eviction after 2 requests", p)
	}
	var states []State
	for _, ch := range changes {
		states = append(states, ch.State)
	}
	want := []State{StateEvicting, StateBlocked, StateTerminating, StateGone}
	if len(states) != len(want) || states[1] != StateBlocked || changes[1].Cause != "The disruption budget web needs 2 healthy pods and has 2 currently" {
		t.Errorf("changes %+v, want %v with the budget's cause", changes, want)
	}
	if n := podGets(c); n != 0 {
		t.Errorf("%d GETs of pods, want none: the watch says when a pod is gone", n)
	}
}

// The wait after a 429 ends at once when the context ends, and no request
// is sent after that.
func TestEngineBackoffRespectsContext(t *testing.T) {
	c := evictionAnswers(pdbRefusal())
	e := testEvictor(c, Backoff{Base: time.Hour, Cap: time.Hour}, webA())
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		eventually(t, "the first refusal", func() bool { return e.tracker.snapshot()[0].State == StateBlocked })
		cancel()
	}()
	start := time.Now()
	err := e.evictAll(ctx, []corev1.Pod{*webA()})
	if err == nil || apierrors.IsTooManyRequests(err) || time.Since(start) > 5*time.Second {
		t.Fatalf("cancelled backoff: err %v after %s, want a prompt error that is not the 429", err, time.Since(start))
	}
	if n := evictions(c); n != 1 {
		t.Errorf("%d evictions sent, want no second one once cancelled", n)
	}
}

// After a budget's 429 the retry goes as soon as the budget's watch shows
// a disruption allowed, long before the backoff.
func TestEngineRetriesWhenTheBudgetAllows(t *testing.T) {
	c := evictionAnswers(pdbRefusal(), nil)
	e := testEvictor(c, Backoff{Base: time.Hour, Cap: time.Hour}, webA())
	e.budgets = newBudgetWatch()
	e.budgets.allowed["shop/web"] = 0
	e.pdbOf = map[string]string{"shop/web-a": "shop/web"}
	go func() {
		eventually(t, "the first refusal", func() bool { return e.tracker.snapshot()[0].State == StateBlocked })
		e.budgets.set(&policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"},
			Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: 1}})
	}()
	goneLater(t, e, webA())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.evictAll(ctx, []corev1.Pod{*webA()}); err != nil {
		t.Fatalf("evictAll: %v, want the pod evicted once its budget allowed it", err)
	}
}
