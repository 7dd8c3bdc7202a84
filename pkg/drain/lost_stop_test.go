package drain

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
)

// An eviction the stop cut short may still be admitted after the first
// read at the end (seen in CI: the report said "not evicted" of a pod the
// cluster then showed terminating). The pod is read again until it shows
// deleted, and called not evicted only when it still is not.
func TestStoppedEvictionReadAgain(t *testing.T) {
	for _, deletedAt := range []int32{2, 0} {
		d, _, cs := recreated(t)
		tracker := newTracker([]corev1.Pod{*statefulPod("old")}, nil)
		tracker.attempt("shop", "web-0")
		tracker.stopped("shop", "web-0")
		var gets atomic.Int32
		cs.PrependReactor("get", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
			p := statefulPod("old")
			if n := gets.Add(1); deletedAt > 0 && n >= deletedAt {
				p.DeletionTimestamp = &metav1.Time{}
			}
			return true, p, nil
		})
		d.newRun().node().refreshGone(context.Background(), tracker)
		got := tracker.snapshot()[0]
		switch {
		case deletedAt > 0 && got.State != StateTerminating:
			t.Errorf("deleted at read %d: %s (%s), want %s", deletedAt, got.State, got.Cause, StateTerminating)
		case deletedAt == 0 && (got.State != StateStopped || !strings.Contains(got.Cause, "read again")):
			t.Errorf("never deleted: %s (%s), want %s saying it was read again", got.State, got.Cause, StateStopped)
		}
	}
}
