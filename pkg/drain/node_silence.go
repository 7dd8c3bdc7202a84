package drain

import (
	"context"
	"slices"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// NodeSilence says that a node's kubelet stopped reporting, as read from
// the cluster: the node lifecycle controller set its Ready condition to
// Unknown (it does so node-monitor-grace-period after the last heartbeat,
// k8s.io/kubernetes/pkg/controller/nodelifecycle), or its Lease in
// kube-node-lease was not renewed within its leaseDurationSeconds (the
// kubelet renews it every quarter of that). Only that kubelet can confirm
// that the containers of a terminating pod on the node stopped, so no
// pod there goes until it reports again.
type NodeSilence struct {
	// LastHeartbeat is the kubelet's last sign: the Lease's renewTime, or
	// the Ready condition's lastHeartbeatTime without a Lease; nil when
	// neither was read.
	LastHeartbeat *metav1.Time `json:"lastHeartbeat,omitempty"`
	// Ready is the node's Ready condition status ("Unknown" once the node
	// lifecycle controller saw the silence), Reason and Message its words.
	Ready   corev1.ConditionStatus `json:"ready"`
	Reason  string                 `json:"reason,omitempty"`
	Message string                 `json:"message,omitempty"`
	// LeaseExpired is true when the Lease's renewTime plus its
	// leaseDurationSeconds had passed when it was read.
	LeaseExpired bool `json:"leaseExpired"`
	// Unreachable is true when the node carries the taint
	// node.kubernetes.io/unreachable the node lifecycle controller adds.
	Unreachable bool `json:"unreachable"`
	// Terminating are the drain's pods ("namespace/name") still
	// terminating on the node: they wait on its kubelet.
	Terminating []string `json:"terminating"`
}

// silence returns how node's kubelet stopped reporting, nil when it
// reports or tells nothing (no Ready condition, no Lease). lease is the
// node's Lease, nil when it could not be read.
func silence(node *corev1.Node, lease *coordinationv1.Lease, now time.Time) *NodeSilence {
	s := &NodeSilence{}
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			s.Ready, s.Reason, s.Message = c.Status, c.Reason, c.Message
			if !c.LastHeartbeatTime.IsZero() {
				s.LastHeartbeat = ptr.To(c.LastHeartbeatTime)
			}
		}
	}
	if lease != nil && lease.Spec.RenewTime != nil {
		renewed := metav1.NewTime(lease.Spec.RenewTime.Time)
		s.LastHeartbeat = &renewed
		if d := lease.Spec.LeaseDurationSeconds; d != nil {
			s.LeaseExpired = now.After(renewed.Add(time.Duration(*d) * time.Second))
		}
	}
	s.Unreachable = slices.ContainsFunc(node.Spec.Taints, func(t corev1.Taint) bool { return t.Key == corev1.TaintNodeUnreachable })
	if s.Ready != corev1.ConditionUnknown && !s.LeaseExpired {
		return nil
	}
	return s
}

// nodeLeaseNamespace holds each node's Lease, named after the node.
const nodeLeaseNamespace = corev1.NamespaceNodeLease

// readSilence returns node's silence with the tracker's pods still
// terminating, nil when it reports. The node's Lease (a read the drain may
// lack the right to make: the Ready condition alone then tells) is read
// only when pods are left terminating, where the answer matters: a
// drained node's summary costs no request more.
func (d *nodeRun) readSilence(ctx context.Context, node *corev1.Node, tracker *podTracker) *NodeSilence {
	terminating := []string{}
	for _, p := range tracker.snapshot() {
		if p.State == StateTerminating {
			terminating = append(terminating, p.Namespace+"/"+p.Name)
		}
	}
	var lease *coordinationv1.Lease
	if len(terminating) > 0 {
		if l, err := d.Client.CoordinationV1().Leases(nodeLeaseNamespace).Get(ctx, node.Name, metav1.GetOptions{}); err == nil {
			lease = l
		}
	}
	s := silence(node, lease, time.Now())
	if s != nil {
		s.Terminating = terminating
	}
	return s
}
