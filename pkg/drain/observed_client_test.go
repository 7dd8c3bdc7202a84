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
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
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
// evictions answer errs in turn.
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

func evict(ctx context.Context, client kubernetes.Interface) error {
	return client.PolicyV1().Evictions("shop").Evict(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-a"}})
}

func TestObserverRecordsRefusalThenAcceptance(t *testing.T) {
	c := evictionAnswers(pdbRefusal(), nil)
	var changes []PodProgress
	pod := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-a"}}
	tr := NewTracker([]corev1.Pod{pod}, func(p PodProgress) { changes = append(changes, p) })
	client := newObservedClient(c, tr, Backoff{Base: time.Millisecond, Cap: 4 * time.Millisecond}, nil, nil, nil)

	if err := evict(context.Background(), client); !apierrors.IsTooManyRequests(err) {
		t.Fatalf("first eviction error = %v, want the 429 passed through to the library", err)
	}
	p := tr.Snapshot()[0]
	if p.State != StateBlocked || p.Cause != "The disruption budget web needs 2 healthy pods and has 2 currently" || p.Attempts != 1 {
		t.Fatalf("after 429: %+v", p)
	}
	if err := evict(context.Background(), client); err != nil {
		t.Fatalf("second eviction: %v", err)
	}
	p = tr.Snapshot()[0]
	if p.State != StateTerminating || p.Attempts != 2 {
		t.Fatalf("after acceptance: %+v", p)
	}
	if len(changes) != 3 { // evicting, blocked, terminating
		t.Errorf("changes = %+v, want evicting, blocked, terminating", changes)
	}
}

func TestObserverBackoffRespectsContext(t *testing.T) {
	c := evictionAnswers(pdbRefusal())
	tr := NewTracker(nil, nil)
	client := newObservedClient(c, tr, Backoff{Base: time.Millisecond, Cap: time.Hour}, nil, nil, nil).(*observedClient)
	ctx, cancel := context.WithCancel(context.Background())
	for range 3 {
		_ = evict(ctx, client) // three 429s
	}
	client.obs.backoff.Base = time.Minute // the next wait is now 8 min - 1 min
	cancel()
	start := time.Now()
	err := evict(ctx, client)
	if err == nil || apierrors.IsTooManyRequests(err) || time.Since(start) > time.Second {
		t.Fatalf("cancelled backoff: err %v after %s, want a prompt non-429 error", err, time.Since(start))
	}
	if p := tr.Snapshot()[0]; p.Attempts != 3 {
		t.Errorf("attempts = %d, want no 4th request once cancelled", p.Attempts)
	}
}
