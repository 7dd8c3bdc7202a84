package render

import (
	"io"

	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/nodewatch"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// NodeJSONLine is one line of `watch node -o json` while it runs: a
// rollout line (WorkloadJSONLine) with the pod's node and workload.
type NodeJSONLine struct {
	WorkloadJSONLine
	Node     string `json:"node,omitempty"`
	Workload string `json:"workload,omitempty"`
	// NodeEvent is set on a line of type "node-event": an Event about
	// the node or a change of one of its conditions.
	NodeEvent *nodewatch.NodeEvent `json:"nodeEvent,omitempty"`
}

// NodeJSONSummary is the last line of `watch node -o json`.
type NodeJSONSummary struct {
	Type    string            `json:"type"`
	Nodes   []string          `json:"nodes"`
	Deleted []string          `json:"nodesDeleted"`
	Verdict nodewatch.Verdict `json:"verdict"`
	Gaps    []JSONGap         `json:"gaps"`
	Notes   []string          `json:"notes"`
}

// NodeJSONPrinter prints `watch node -o json`: one object a line.
func NodeJSONPrinter(out io.Writer) nodewatch.Printer {
	enc := func(l NodeJSONLine) { _ = termsafe.NewJSONEncoder(out).Encode(l) }
	return nodewatch.Printer{
		PodEvent: func(w *nodewatch.Watch, node string, r *rollout.Rollout, tl *timeline.Timeline, e timeline.Event) {
			ev := jsonEvent(clockOf(w.T0), e)
			ev.OthersReady = nil // watch node -o json has never carried it
			enc(NodeJSONLine{Node: node, Workload: workloadName(r), WorkloadJSONLine: WorkloadJSONLine{Pod: tl.Pod, JSONEvent: ev}})
		},
		Capacity: func(w *nodewatch.Watch, service string, s rollout.CapacitySample) {
			enc(NodeJSONLine{WorkloadJSONLine: capacityJSON(clockOf(w.T0), service, s, capacityText(s, "ready at start"))})
		},
		Gap:  func(w *nodewatch.Watch, g timeline.Gap) { _ = WriteJSONGap(out, clockOf(w.T0), g) },
		Note: func(_ *nodewatch.Watch, msg string) { enc(NodeJSONLine{WorkloadJSONLine: noteJSON(msg)}) },
		NodeEvent: func(w *nodewatch.Watch, e nodewatch.NodeEvent) {
			enc(NodeJSONLine{Node: e.Node, NodeEvent: &e, WorkloadJSONLine: WorkloadJSONLine{JSONEvent: JSONEvent{
				Type: "node-event", Ms: msPtr(clockOf(w.T0), e.Recv), Local: e.Recv.Round(0), Server: e.Time, Message: e.String()}}})
		},
	}
}

// WriteNodeJSONSummary writes the summary object that ends -o json.
func WriteNodeJSONSummary(out io.Writer, w *nodewatch.Watch, v nodewatch.Verdict) error {
	s := NodeJSONSummary{Type: "summary", Nodes: w.Nodes, Deleted: orEmpty(w.NodesDeleted), Verdict: v,
		Gaps: jsonGaps(clockOf(w.T0), w.Gaps), Notes: orEmpty(w.Notes)}
	return termsafe.NewJSONEncoder(out).Encode(s)
}
