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
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

// Another drain evicted the pod after we listed it: our eviction, sent
// with the listed pod's resourceVersion, gets a conflict instead of the
// success the eviction subresource answers for a terminating pod; the
// watch's newer version shows it terminating, it is waited for, and once
// gone it counts as removed by another client, not as our eviction.
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
	e := testEvictor(cs, Backoff{Base: time.Millisecond, Cap: time.Millisecond}, listed)
	go func() {
		eventually(t, "the first eviction", func() bool { return e.tracker.snapshot()[0].Attempts == 1 })
		e.pods.notice(listwatch.Notice{Kind: listwatch.KindEvent, Event: &watch.Event{Type: watch.Modified, Object: evicted}})
		eventually(t, "the pod waited for", func() bool { return e.tracker.snapshot()[0].State == StateTerminating })
		e.pods.notice(listwatch.Notice{Kind: listwatch.KindEvent, Event: &watch.Event{Type: watch.Deleted, Object: evicted}})
	}()
	if err := e.evictAll(context.Background(), []corev1.Pod{*listed}); err != nil {
		t.Fatalf("evictAll: %v", err)
	}
	if len(sent) != 1 || sent[0].DeleteOptions.Preconditions.UID == nil || *sent[0].DeleteOptions.Preconditions.UID != "uid-1" {
		t.Fatalf("evictions sent %+v: want one, with the listed pod's UID and resourceVersion as preconditions", sent)
	}
	if got := e.tracker.snapshot()[0]; got.State != StateGone || got.GoneBy != GoneByOther {
		t.Errorf("web-0 %s by %q, want gone by %q", got.State, got.GoneBy, GoneByOther)
	}
}
