package drain

import (
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A node is silent when the node lifecycle controller set its Ready
// condition Unknown, or when its Lease was not renewed within its
// duration; a node that reports, or tells nothing, is not.
func TestSilenceFromTheReadyConditionAndTheLease(t *testing.T) {
	now := time.Date(2026, 12, 2, 14, 0, 0, 0, time.UTC)
	node := func(status corev1.ConditionStatus, taints ...corev1.Taint) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Spec: corev1.NodeSpec{Taints: taints}}
		if status != "" {
			n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status, Reason: "NodeStatusUnknown",
				Message: "Kubelet stopped posting node status.", LastHeartbeatTime: metav1.NewTime(now.Add(-4 * time.Minute))}}
		}
		return n
	}
	lease := func(renewedAgo time.Duration) *coordinationv1.Lease {
		d := int32(40)
		renewed := metav1.NewMicroTime(now.Add(-renewedAgo))
		return &coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{LeaseDurationSeconds: &d, RenewTime: &renewed}}
	}
	unreachable := corev1.Taint{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoSchedule}

	s := silence(node(corev1.ConditionUnknown, unreachable), lease(4*time.Minute), now)
	if s == nil || !s.LeaseExpired || !s.Unreachable || s.Reason != "NodeStatusUnknown" || !s.LastHeartbeat.Time.Equal(now.Add(-4*time.Minute)) {
		t.Errorf("Ready Unknown, Lease 4 min old: %+v", s)
	}
	if s := silence(node(corev1.ConditionTrue), lease(50*time.Second), now); s == nil || !s.LeaseExpired || s.Ready != corev1.ConditionTrue {
		t.Errorf("Ready True but the Lease expired: %+v", s)
	}
	if s := silence(node(corev1.ConditionUnknown), nil, now); s == nil || s.LeaseExpired {
		t.Errorf("Ready Unknown, the Lease unread: %+v", s)
	}
	for name, s := range map[string]*NodeSilence{
		"reporting":                silence(node(corev1.ConditionTrue), lease(5*time.Second), now),
		"not ready, but reporting": silence(node(corev1.ConditionFalse), lease(5*time.Second), now),
		"no condition, no Lease":   silence(node(""), nil, now),
	} {
		if s != nil {
			t.Errorf("%s: called silent: %+v", name, s)
		}
	}
}
