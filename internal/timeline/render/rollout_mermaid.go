package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
)

// WriteRolloutMermaid writes a Mermaid gantt chart of the rollout, one
// section per terminated pod on the rollout's clock (milliseconds since
// its start, drawn as dates from the Unix epoch with dateFormat x).
func WriteRolloutMermaid(w io.Writer, r *rollout.Rollout, v rollout.Verdict) error {
	var b strings.Builder
	writeMermaidHead(&b, fmt.Sprintf("Rollout of %s in %s", mermaidText(r.Workload.String()), mermaidText(r.Workload.Namespace)), rolloutSpan(r, v))
	writeMermaidPods(&b, "", v)
	writeMermaidRequests(&b, v.Requests)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeMermaidPods writes one section per terminated pod of v, named
// prefix and the pod's name, on the rollout's clock.
func writeMermaidPods(b *strings.Builder, prefix string, v rollout.Verdict) {
	for _, p := range v.Pods {
		sv := shifted(p.Verdict, p.DeletedMs)
		fmt.Fprintf(b, "    section %s\n", mermaidText(prefix+p.Pod))
		fmt.Fprintf(b, "    deletion seen %+d ms :milestone, %d, 0ms\n", p.DeletedMs, p.DeletedMs)
		if sv.BehindService && sv.EndpointOutMs != nil {
			fmt.Fprintf(b, "    out of every ready set %+d ms :milestone, %d, 0ms\n", *sv.EndpointOutMs, *sv.EndpointOutMs)
		}
		writeMermaidKubelet(b, sv)
		writeMermaidWindow(b, "", sv, p.Raced, p.WindowTooShort)
	}
}

// writeMermaidHead starts a gantt chart of title (already made safe) whose
// times are ms drawn as dates from the Unix epoch (dateFormat x), its axis
// in minutes past a minute of span.
func writeMermaidHead(b *strings.Builder, title string, span int64) {
	b.WriteString("gantt\n")
	fmt.Fprintf(b, "    title %s\n", title)
	b.WriteString("    dateFormat x\n")
	if span > 60000 {
		b.WriteString("    axisFormat %M:%S\n")
	} else {
		b.WriteString("    axisFormat %S.%L s\n")
	}
}
