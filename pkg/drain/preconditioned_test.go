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
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// Another drain evicted the pod after we listed it: our eviction, sent
// with the listed pod's resourceVersion, gets a conflict instead of the
// success the eviction subresource answers for a terminating pod; the pod
// is read again, found terminating and waited for, and once gone it counts
// as removed by another client, not as our eviction.
func TestEvictionOfAPodAnotherDrainEvicted(t *testing.T) {
	listed := statefulPod("uid-1")
	listed.ResourceVersion = "1"
	now := metav1.Now()
	evicted := listed.DeepCopy()
	evicted.ResourceVersion, evicted.DeletionTimestamp, evicted.DeletionGracePeriodSeconds = "2", &now, new(int64)
	cs := fake.NewClientset(evicted)
	var sent []*policyv1.Eviction
	cs.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "eviction" {
			return false, nil, nil
		}
		ev := a.(k8stesting.CreateAction).GetObject().(*policyv1.Eviction)
		sent = append(sent, ev)
		if p := ev.DeleteOptions.Preconditions; p != nil && p.ResourceVersion != nil && *p.ResourceVersion != evicted.ResourceVersion {
			return true, nil, apierrors.NewConflict(corev1.Resource("pods"), ev.Name, nil)
		}
		return true, nil, nil // the subresource's success for a terminating pod
	})
	tracker := NewTracker([]corev1.Pod{*listed}, nil)
	c := newObservedClient(cs, tracker, Backoff{Base: time.Millisecond, Cap: time.Millisecond}, nil, nil, nil)
	err := c.PolicyV1().Evictions("shop").Evict(context.Background(), &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-0"}})
	if err != nil {
		t.Fatalf("Evict: %v, want nil (the pod is terminating: wait for it)", err)
	}
	if len(sent) != 1 || sent[0].DeleteOptions.Preconditions.UID == nil || *sent[0].DeleteOptions.Preconditions.UID != "uid-1" {
		t.Fatalf("evictions sent %+v: want one, with the listed pod's UID and resourceVersion as preconditions", sent)
	}
	tracker.set("shop", "web-0", StateGone, "")
	if got := tracker.Snapshot()[0]; got.GoneBy != GoneByOther {
		t.Errorf("web-0 gone by %q, want %q", got.GoneBy, GoneByOther)
	}
}
