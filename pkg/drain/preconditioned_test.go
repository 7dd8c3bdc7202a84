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

// A budget covers the pod, and its version changed just before the
// eviction (the disruption controller clears a DisruptionTarget condition
// as it drops a stale disruptedPods entry): the API server records the pod
// in the budget and then answers 409 (TestStaleVersionSpendsTheBudget
// shows it doing so). Not terminating in its newer version, the pod the
// budget let go is deleted (UID alone, the eviction's grace); terminating,
// it was another client's eviction and is only waited for. With the
// DisruptionTarget condition an eviction sets before its delete, the pod
// is given conflictWait to turn terminating (another client's eviction
// between its two writes); when it does not, that eviction's own delete
// conflicted (the pod changed between the two writes: our eviction's,
// under a controller that patches its pods) and the pod is deleted.
func TestEvictionRefusedAfterTheBudgetRecordedIt(t *testing.T) {
	for _, c := range []struct {
		name        string
		terminating bool
		marked      bool // DisruptionTarget True: an eviction between its two writes
		deletedBy   bool // the other client's delete follows the condition
		wantDeletes int
		wantBy      GoneBy
	}{
		{"the pod still serving: deleted", false, false, false, 1, GoneByEviction},
		{"another client evicted it: waited for", true, false, false, 0, GoneByOther},
		{"another client's eviction under way: waited for", false, true, true, 0, GoneByOther},
		{"the eviction's own delete conflicted: deleted", false, true, false, 1, GoneByEviction},
	} {
		t.Run(c.name, func(t *testing.T) {
			listed := webA()
			listed.UID, listed.ResourceVersion = "uid-a", "7"
			newer := listed.DeepCopy()
			newer.ResourceVersion = "8"
			if c.terminating {
				now := metav1.Now()
				newer.DeletionTimestamp = &now
			}
			if c.marked {
				newer.Status.Conditions = []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "EvictionByEvictionAPI"}}
			}
			cs := fake.NewClientset(newer)
			var e *evictor
			var deletes []metav1.DeleteOptions
			cs.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
				if a.GetSubresource() != "eviction" {
					return false, nil, nil
				}
				e.budgets.set(&policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"},
					Status: policyv1.PodDisruptionBudgetStatus{DisruptedPods: map[string]metav1.Time{"web-a": metav1.Now()}}})
				e.pods.notice(listwatch.Notice{Kind: listwatch.KindEvent, Event: &watch.Event{Type: watch.Modified, Object: newer}})
				return true, nil, apierrors.NewConflict(corev1.Resource("pods"), "web-a", nil)
			})
			cs.PrependReactor("delete", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
				deletes = append(deletes, a.(k8stesting.DeleteAction).GetDeleteOptions())
				go e.pods.notice(listwatch.Notice{Kind: listwatch.KindEvent, Event: &watch.Event{Type: watch.Deleted, Object: newer}})
				return true, nil, nil
			})
			e = testEvictor(cs, Backoff{Base: time.Millisecond, Cap: time.Millisecond}, listed)
			e.budgets = newBudgetWatch()
			e.budgets.allowed["shop/web"] = 1
			e.pdbOf = map[string]string{"shop/web-a": "shop/web"}
			if c.terminating {
				go func() {
					eventually(t, "the pod waited for", func() bool { return e.tracker.snapshot()[0].State == StateTerminating })
					e.pods.notice(listwatch.Notice{Kind: listwatch.KindEvent, Event: &watch.Event{Type: watch.Deleted, Object: newer}})
				}()
			}
			if c.deletedBy {
				go func() {
					eventually(t, "the first eviction", func() bool { return evictions(cs) >= 1 })
					time.Sleep(conflictWait / 4)
					deleting := newer.DeepCopy()
					now := metav1.Now()
					deleting.ResourceVersion, deleting.DeletionTimestamp = "9", &now
					e.pods.notice(listwatch.Notice{Kind: listwatch.KindEvent, Event: &watch.Event{Type: watch.Modified, Object: deleting}})
					eventually(t, "the pod waited for", func() bool { return e.tracker.snapshot()[0].State == StateTerminating })
					e.pods.notice(listwatch.Notice{Kind: listwatch.KindEvent, Event: &watch.Event{Type: watch.Deleted, Object: deleting}})
				}()
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := e.evictAll(ctx, []corev1.Pod{*listed}); err != nil {
				t.Fatalf("evictAll: %v", err)
			}
			if len(deletes) != c.wantDeletes {
				t.Fatalf("%d deletes, want %d", len(deletes), c.wantDeletes)
			}
			if c.wantDeletes > 0 {
				if p := deletes[0].Preconditions; p == nil || p.UID == nil || *p.UID != "uid-a" || p.ResourceVersion != nil {
					t.Errorf("delete preconditions %+v: want the UID alone", p)
				}
			}
			if got := e.tracker.snapshot()[0]; got.State != StateGone || got.GoneBy != c.wantBy {
				t.Errorf("web-a %s by %q, want gone by %q", got.State, got.GoneBy, c.wantBy)
			}
		})
	}
}
