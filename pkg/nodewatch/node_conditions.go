package nodewatch

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// conditionSeen is what conditionsSeen last saw of a node's condition.
type conditionSeen struct{ status, reason string }

// conditionsSeen prints each change of a followed node's conditions after
// the first sight of the node: a condition added (a drainer's or a node
// problem detector's own type), its status or reason changed, or removed.
// Ready is left out: its Unknown is a Silence (readySeen), and its False
// comes with the node controller's NodeNotReady Event. A message alone
// changing (the kubelet rewrites some) is not a change.
func (f *follower) conditionsSeen(recv time.Time, node *corev1.Node) {
	if !slices.Contains(f.w.Nodes, node.Name) {
		return
	}
	prev, known := f.conditions[node.Name]
	now := map[corev1.NodeConditionType]conditionSeen{}
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			continue
		}
		now[c.Type] = conditionSeen{status: string(c.Status), reason: c.Reason}
		if known && prev[c.Type] != now[c.Type] {
			f.emitNodeEvent(NodeEvent{Node: node.Name, Condition: string(c.Type), Status: string(c.Status), Reason: c.Reason,
				Message: c.Message, By: conditionManager(node, string(c.Type)), Time: c.LastTransitionTime.Time, Recv: recv})
		}
	}
	f.conditions[node.Name] = now
	if !known {
		return
	}
	for _, t := range slices.Sorted(maps.Keys(prev)) {
		if _, ok := now[t]; !ok {
			f.emitNodeEvent(NodeEvent{Node: node.Name, Condition: string(t), Recv: recv})
		}
	}
}

// conditionManager returns the field manager that last wrote the node's
// condition of type typ, from metadata.managedFields (the entry, newest
// first, whose fields hold f:status.f:conditions.k:{"type":typ}), "" when
// none does (managedFields cleared, or written before server-side field
// tracking).
func conditionManager(node *corev1.Node, typ string) string {
	key := `k:{"type":` + strconv.Quote(typ) + `}`
	best, at := "", time.Time{}
	for _, m := range node.ManagedFields {
		if m.FieldsV1 == nil || (best != "" && (m.Time == nil || !m.Time.After(at))) {
			continue
		}
		var fs struct {
			Status struct {
				Conditions map[string]json.RawMessage `json:"f:conditions"`
			} `json:"f:status"`
		}
		if json.Unmarshal(m.FieldsV1.GetRawBytes(), &fs) != nil {
			continue
		}
		if _, ok := fs.Status.Conditions[key]; ok {
			best = m.Manager
			if m.Time != nil {
				at = m.Time.Time
			}
		}
	}
	return best
}
