package render

import (
	"io"
	"strings"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/nodewatch"
)

// WriteNodeMermaid writes a Mermaid gantt chart of the drain, one section
// per terminated pod (named by its workload and pod, as the rollout's
// chart names its pods: writeMermaidPods), on the watch's clock
// (milliseconds since the first deletion seen, drawn as dates from the
// Unix epoch with dateFormat x). Every name from the cluster goes through
// mermaidText.
func WriteNodeMermaid(out io.Writer, w *nodewatch.Watch, v nodewatch.Verdict) error {
	end := int64(0)
	for i, r := range w.Workloads {
		if i < len(v.Workloads) {
			end = max(end, rolloutSpan(r, v.Workloads[i].Verdict))
		}
	}
	var b strings.Builder
	writeMermaidHead(&b, "Drain of node(s) "+mermaidText(strings.Join(w.Nodes, ", ")), end)
	for _, wr := range v.Workloads {
		writeMermaidPods(&b, workloadRef(wr.Workload)+" ", wr.Verdict)
	}
	_, err := io.WriteString(out, b.String())
	return err
}
