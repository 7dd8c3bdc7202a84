package nodewatch

import (
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// Silence is a time in which a followed node's kubelet did not report:
// the node lifecycle controller sets the node's Ready condition to Unknown
// once node-monitor-grace-period passed without a heartbeat (a status
// update or a renewal of its Lease), k8s.io/kubernetes/pkg/controller/nodelifecycle,
// and the kubelet sets it again when it comes back. Only that kubelet can
// confirm that a terminating pod's containers stopped, so no pod on the
// node goes in between (unless force-deleted, which stops nothing).
type Silence struct {
	Node string `json:"node"`
	// LastHeartbeat is the Ready condition's lastHeartbeatTime: the
	// kubelet's last status report the controller saw.
	LastHeartbeat time.Time `json:"lastHeartbeat"`
	// Reason and Message are the Ready condition's words
	// ("NodeStatusUnknown", "Kubelet stopped posting node status.").
	Reason  string `json:"reason"`
	Message string `json:"message"`
	// Seen and Back are when the watch saw the Ready condition turn
	// Unknown and leave Unknown; Back is zero when it had not when the
	// watch ended.
	Seen time.Time `json:"-"`
	Back time.Time `json:"-"`
}

// readySeen follows a node's Ready condition: a Silence opens when it is
// Unknown and closes when it is no longer, each said in a note.
func (f *follower) readySeen(recv time.Time, node *corev1.Node) {
	if !slices.Contains(f.w.Nodes, node.Name) {
		return
	}
	var ready *corev1.NodeCondition
	for i := range node.Status.Conditions {
		if node.Status.Conditions[i].Type == corev1.NodeReady {
			ready = &node.Status.Conditions[i]
		}
	}
	open := f.w.openSilence(node.Name)
	switch silent := ready != nil && ready.Status == corev1.ConditionUnknown; {
	case silent && open == nil:
		s := Silence{Node: node.Name, LastHeartbeat: ready.LastHeartbeatTime.Time, Reason: ready.Reason, Message: ready.Message, Seen: recv}
		f.w.Silences = append(f.w.Silences, s)
		f.note(fmt.Sprintf("node %s stopped reporting: %s; %s", node.Name, s.facts(), waitsOnKubelet(f.terminatingOn(node.Name))))
	case !silent && open != nil:
		open.Back = recv
		status := "no Ready condition"
		if ready != nil {
			status = "Ready " + string(ready.Status)
		}
		f.note(fmt.Sprintf("node %s reports again (%s), %s after it was seen silent: its kubelet can end its pods' terminations", node.Name, status, recv.Sub(open.Seen).Round(100*time.Millisecond)))
	}
}

// openSilence returns node's Silence still open, nil when there is none.
func (w *Watch) openSilence(node string) *Silence {
	for i := range w.Silences {
		if s := &w.Silences[i]; s.Node == node && s.Back.IsZero() {
			return s
		}
	}
	return nil
}

// facts words what the cluster said of the silent kubelet.
func (s Silence) facts() string {
	out := "its Ready condition is Unknown"
	if s.Reason != "" {
		out += " (" + s.Reason + ": " + s.Message + ")"
	}
	if !s.LastHeartbeat.IsZero() {
		out += ", its kubelet's last heartbeat at " + s.LastHeartbeat.UTC().Format(time.TimeOnly) + "Z"
	}
	return out
}

// waitsOnKubelet says what the pods still terminating on a silent node wait on.
func waitsOnKubelet(terminating []string) string {
	if len(terminating) == 0 {
		return "no pod followed is terminating on it yet; a pod deleted there will not go until it reports again"
	}
	return fmt.Sprintf("%d pod(s) stuck terminating on it (%s): their containers may still run and only its kubelet can confirm they stopped, so waiting will not help until the node reports again",
		len(terminating), someOf(terminating))
}

// terminatingOn returns the followed pods on node whose deletion was seen
// and which are not gone, as namespace/name.
func (f *follower) terminatingOn(node string) []string {
	var out []string
	for _, rec := range f.set.Recorders() {
		if f.nodeOf[types.UID(rec.TL.UID)] == node && !rec.TL.HasKind(timeline.KindPodGone) && !rec.TL.T0.IsZero() {
			out = append(out, rec.Pod().Namespace+"/"+rec.Pod().Name)
		}
	}
	return out
}

// silenceFindings says, for each node that stopped reporting, for how
// long and what it held up: a node still silent at the end holds its
// terminating pods, which the watch then could not see end.
func silenceFindings(w *Watch, risk, fact func(string, ...any)) {
	for _, s := range w.Silences {
		var held []string
		for tl, p := range w.pods {
			name := tl.Namespace + "/" + tl.Pod
			if p.node == s.Node && slices.Contains(w.Terminating, name) {
				held = append(held, name)
			}
		}
		slices.Sort(held)
		if s.Back.IsZero() {
			risk("node %s stopped reporting (%s) and had not reported again when the watch ended, %s later; %s",
				s.Node, s.facts(), w.End.Sub(s.Seen).Round(100*time.Millisecond), waitsOnKubelet(held))
			continue
		}
		fact("node %s stopped reporting: the node lifecycle controller marked it at %s, once no heartbeat had come for its grace period (%s), and its kubelet reported again at %s: its pods' terminations could not end while it was silent, and what they did then is known only from what its kubelet reported after",
			s.Node, clock(s.Seen), s.facts(), clock(s.Back))
	}
}

// clock is a local time of the watch as a wall clock.
func clock(t time.Time) string { return t.UTC().Format("15:04:05.000") + "Z" }
