package nodewatch

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/internal/callback"
	"github.com/kubectl-graceful/kubectl-graceful/internal/follow"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

// streamNodeEvents is the stream of the Events about the followed nodes.
const streamNodeEvents = "node events"

// NodeEvent is what a drainer, the kubelet or a controller said about a
// followed node while it was watched: an Event whose involvedObject is the
// node (cluster-autoscaler's ScaleDown, Karpenter's DisruptionBlocked,
// node-termination-handler's CordonAndDrain, the node controller's
// NodeNotSchedulable; docs/watch-node.md, "Who drains"), or a change of one
// of its conditions other than Ready (whose Unknown is a Silence).
type NodeEvent struct {
	Node string `json:"node"`
	// Condition is the condition's type; "" for an Event.
	Condition string `json:"condition,omitempty"`
	// Status is the condition's status, "" when it was removed (and for an
	// Event); Type is an Event's type (Normal, Warning).
	Status string `json:"status,omitempty"`
	Type   string `json:"type,omitempty"`
	// Reason and Message are the Event's or the condition's, as written by
	// who set them: cluster text, to be escaped before a terminal.
	Reason  string `json:"reason"`
	Message string `json:"message"`
	// By is who wrote it: the Event's reportingController, else its
	// source.component; for a condition, the field manager that last
	// wrote it (metadata.managedFields), "" when none says.
	By string `json:"by,omitempty"`
	// Count is how many times the Event was emitted (count, or its
	// series' count); 0 for a condition.
	Count int32 `json:"count,omitempty"`
	// Time is the server's time: the Event's last occurrence, the
	// condition's lastTransitionTime. Recv is when the watch saw it.
	Time time.Time `json:"time,omitzero"`
	Recv time.Time `json:"-"`
}

// String is the line the watch prints, unescaped.
func (e NodeEvent) String() string {
	by := ""
	if e.By != "" {
		by = " by " + e.By
	}
	if e.Condition != "" {
		if e.Status == "" {
			return fmt.Sprintf("condition %s removed%s", e.Condition, by)
		}
		return fmt.Sprintf("condition %s=%s%s%s", e.Condition, e.Status, reasonMessage(e.Reason, e.Message), by)
	}
	times := ""
	if e.Count > 1 {
		times = " (x" + strconv.Itoa(int(e.Count)) + ")"
	}
	return fmt.Sprintf("%s Event %s%s%s: %s", cmp.Or(e.Type, "Normal"), e.Reason, by, times, e.Message)
}

// reasonMessage is " (reason: message)", what of it is set.
func reasonMessage(reason, message string) string {
	switch {
	case reason != "" && message != "":
		return " (" + reason + ": " + message + ")"
	case reason+message != "":
		return " (" + reason + message + ")"
	}
	return ""
}

// nodeEventStream watches the Events about Nodes: one node's by name, or
// every Node's when several are followed (one watch, not one a node; the
// others are dropped as they come). Events about a node are written in
// the namespace of whoever emits them (default, mostly), so all are watched.
func (f *follower) nodeEventStream() *listwatch.Stream {
	sel := fields.OneTermEqualSelector("involvedObject.kind", "Node")
	if len(f.w.Nodes) == 1 {
		sel = fields.AndSelectors(sel, fields.OneTermEqualSelector("involvedObject.name", f.w.Nodes[0]))
	}
	return follow.Stream(streamNodeEvents, f.cfg.Client.CoreV1().RESTClient(), "events", "", "", sel.String())
}

// nodeEventsListed records a List of the nodes' Events: the first is the
// past (known, not printed), a re-list after 410 Gone prints what is new.
func (f *follower) nodeEventsListed(recv time.Time, list []runtime.Object, initial bool) {
	for _, o := range list {
		if ev, ok := o.(*corev1.Event); ok {
			f.nodeEvent(recv, watch.Added, ev, initial)
		}
	}
}

// nodeEvent prints an Event about a followed node when it is new or
// emitted again (its count or last time changed).
func (f *follower) nodeEvent(recv time.Time, typ watch.EventType, ev *corev1.Event, initial bool) {
	if typ == watch.Deleted || !slices.Contains(f.w.Nodes, ev.InvolvedObject.Name) {
		return
	}
	e := nodeEventOf(ev)
	sig := fmt.Sprintf("%d %s %s", e.Count, e.Time, e.Message)
	if f.nodeEventsSeen[ev.UID] == sig {
		return
	}
	f.nodeEventsSeen[ev.UID] = sig
	if initial {
		return
	}
	e.Recv = recv
	f.emitNodeEvent(e)
}

// nodeEventOf is what the watch tells of an Event about a node.
func nodeEventOf(ev *corev1.Event) NodeEvent {
	count := ev.Count
	last := cmp.Or(ev.LastTimestamp.Time, ev.EventTime.Time, ev.FirstTimestamp.Time, ev.CreationTimestamp.Time)
	if ev.Series != nil {
		count, last = max(count, ev.Series.Count), ev.Series.LastObservedTime.Time
	}
	return NodeEvent{Node: ev.InvolvedObject.Name, Type: ev.Type, Reason: ev.Reason, Message: ev.Message,
		By: cmp.Or(ev.ReportingController, ev.Source.Component), Count: count, Time: last}
}

func (f *follower) emitNodeEvent(e NodeEvent) {
	f.w.NodeEvents = append(f.w.NodeEvents, e)
	callback.Call(f.cfg.Printer.NodeEvent, f.w, e)
}
