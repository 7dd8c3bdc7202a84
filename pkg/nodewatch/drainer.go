package nodewatch

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// The marks drainers leave on a node, each from the drainer's own source
// (docs/watch-node.md, "Who drains").
const (
	// caToBeDeletedTaint is cluster-autoscaler's taint on a node it is
	// scaling down; its value is the Unix time in seconds it was set
	// (kubernetes/autoscaler cluster-autoscaler/utils/taints/taints.go).
	caToBeDeletedTaint = "ToBeDeletedByClusterAutoscaler"
	// caDefaultMaxGraceSeconds is the default of cluster-autoscaler's
	// --max-graceful-termination-sec (cluster-autoscaler/main.go: 10*60).
	caDefaultMaxGraceSeconds = 600
	// karpenterDisruptedTaint is Karpenter's NoSchedule taint on a node it
	// disrupts (sigs.k8s.io/karpenter pkg/apis/v1/taints.go).
	karpenterDisruptedTaint = "karpenter.sh/disrupted"
	// nthTaintPrefix starts the taints aws-node-termination-handler sets
	// with --taint-node (pkg/node/node.go: spot-itn,
	// scheduled-maintenance, asg-lifecycle-termination,
	// rebalance-recommendation); their value is the event's ID.
	nthTaintPrefix = "aws-node-termination-handler/"
	// capiMachineAnnotation names, on a node, the Cluster API Machine it
	// belongs to (cluster.x-k8s.io/machine); capiNamespaceAnnotation its
	// namespace.
	capiMachineAnnotation   = "cluster.x-k8s.io/machine"
	capiNamespaceAnnotation = "cluster.x-k8s.io/cluster-namespace"
	// kuredLockAnnotation is the annotation on kured's DaemonSet that
	// names the node holding its reboot lock (kubereboot/kured
	// KuredNodeLockAnnotation, --lock-annotation's default).
	kuredLockAnnotation = "weave.works/kured-node-lock"
)

// Drainer is who the marks on a node say is draining it.
type Drainer struct {
	Node string `json:"node"`
	// Name is "cluster-autoscaler", "karpenter",
	// "aws-node-termination-handler", "cluster-api", "kured", or "" for a
	// node cordoned with none of their marks.
	Name string `json:"name"`
	// Mark is the mark read, as found on the cluster.
	Mark string `json:"mark"`
	// Since is when the mark says the drain began (cluster-autoscaler's
	// taint value, a taint's timeAdded); zero when it does not say.
	Since time.Time `json:"since,omitzero"`
	// Deadline says what bounds the drain, and how it is known, or that it
	// is unknown and why.
	Deadline string `json:"deadline"`
	// ThisDrain is true, with Name "", when the drain of the watch's own
	// process (`drain node --watch`, Config.CordonedHere) cordoned the
	// node: no mark names it, but it knows its own cordon.
	ThisDrain bool `json:"thisDrain,omitempty"`
}

// String is the line the watch prints.
func (d Drainer) String() string {
	who := "cordoned by someone (no drainer's marks)"
	switch {
	case d.ThisDrain:
		who = "cordoned by this drain"
	case d.Name != "":
		who = "drained by " + d.Name + " (" + d.Mark + ")"
	}
	since := ""
	if !d.Since.IsZero() {
		since = " since " + d.Since.UTC().Format(time.TimeOnly) + "Z"
	}
	return fmt.Sprintf("node %s: %s%s; deadline: %s", d.Node, who, since, d.Deadline)
}

// drainerFacts are what the watch read beside the node: the node kured's
// lock names, and the drainer's own objects when readable.
type drainerFacts struct {
	// kuredHolder is the node named by kured's lock, "" when none or
	// unread; read only for a cordoned node (kured cordons before draining).
	kuredHolder string
	// kuredDaemonSet is the DaemonSet ("namespace/name") whose lock
	// kuredHolder was read from.
	kuredDaemonSet string
	// machineDeadline, nodeClaimDeadline: the deadline read from the
	// Cluster API Machine or the Karpenter NodeClaim, or why it is unknown.
	machineDeadline, nodeClaimDeadline func(node *corev1.Node) string
}

// whoDrains reads the drainer's marks on node; false when the node is
// schedulable and carries none.
func whoDrains(node *corev1.Node, facts drainerFacts) (Drainer, bool) {
	d := Drainer{Node: node.Name}
	for _, t := range node.Spec.Taints {
		switch {
		case t.Key == caToBeDeletedTaint:
			d.Name, d.Mark = "cluster-autoscaler", "taint "+caToBeDeletedTaint
			if s, err := strconv.ParseInt(t.Value, 10, 64); err == nil {
				d.Since = time.Unix(s, 0)
			}
			d.Deadline = fmt.Sprintf("each pod's grace period is capped at %d s, cluster-autoscaler's default: its --max-graceful-termination-sec may change it (not readable here)", caDefaultMaxGraceSeconds)
			return d, true
		case t.Key == karpenterDisruptedTaint:
			d.Name, d.Mark, d.Since = "karpenter", "taint "+karpenterDisruptedTaint, ptr.Deref(t.TimeAdded, metav1.Time{}).Time
			d.Deadline = call(facts.nodeClaimDeadline, node)
			return d, true
		case strings.HasPrefix(t.Key, nthTaintPrefix):
			d.Name, d.Mark, d.Since = "aws-node-termination-handler", "taint "+t.Key, ptr.Deref(t.TimeAdded, metav1.Time{}).Time
			d.Deadline = "unknown: the taint's value is the event's ID, not a time"
			if t.Key == nthTaintPrefix+"spot-itn" {
				d.Deadline = "a spot interruption: EC2 reclaims the instance 2 minutes after its notice"
			}
			return d, true
		}
	}
	if !node.Spec.Unschedulable {
		return Drainer{}, false
	}
	if facts.kuredHolder != "" && facts.kuredHolder == node.Name {
		d.Name, d.Mark = "kured", "the "+kuredLockAnnotation+" lock on DaemonSet "+cmp.Or(facts.kuredDaemonSet, "kube-system/kured")+" names this node"
		d.Deadline = "unknown: kured's --drain-timeout is not recorded on the cluster"
		return d, true
	}
	if m := node.Annotations[capiMachineAnnotation]; m != "" {
		if dl := call(facts.machineDeadline, node); dl != "" {
			d.Name, d.Mark = "cluster-api", "Machine "+node.Annotations[capiNamespaceAnnotation]+"/"+m+" is being deleted"
			d.Deadline = dl
			return d, true
		}
	}
	d.Deadline = "unknown"
	return d, true
}

// call returns f(node), or "unknown" when f is nil.
func call(f func(*corev1.Node) string, node *corev1.Node) string {
	if f == nil {
		return "unknown"
	}
	return f(node)
}

// kuredLockHolder reads the node kured's lock annotation names: one lock
// ({"nodeID": ...}) or several ({"locks": [{"nodeID": ...}]}, kured's
// --concurrency); "" when none or unreadable. With several it returns the
// first that is node.
func kuredLockHolder(annotation, node string) string {
	var lock struct {
		NodeID string `json:"nodeID"`
		Locks  []struct {
			NodeID string `json:"nodeID"`
		} `json:"locks"`
	}
	if json.Unmarshal([]byte(annotation), &lock) != nil {
		return ""
	}
	if lock.NodeID != "" {
		return lock.NodeID
	}
	for _, l := range lock.Locks {
		if l.NodeID == node {
			return node
		}
	}
	return ""
}
