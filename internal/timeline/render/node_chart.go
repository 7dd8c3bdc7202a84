package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/nodewatch"
)

// WriteNodeChart draws the drain on one time axis from the first deletion
// seen: one row per workload (its pods' rows of the rollout chart laid
// over each other, podRow), then each of its Services' ready endpoints as
// a step line (writeStepRows), as the rollout chart draws them:
//
//	shop/Deployment/web   D-#X-G  D-#X-G
//	ready web           2 ******  ********
//	                    1 ****************
func WriteNodeChart(out io.Writer, w *nodewatch.Watch, v nodewatch.Verdict) error {
	if w.T0.IsZero() || len(w.Workloads) != len(v.Workloads) {
		return nil
	}
	end := int64(1000)
	width := 12
	for i, r := range w.Workloads {
		end = max(end, rolloutSpan(r, v.Workloads[i].Verdict))
		width = max(width, len(chartLabel(workloadName(r))))
	}
	col := func(ms int64) int { return int(max(ms, 0) * int64(chartWidth-1) / end) }
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-*s%s\n", width+2, "", axis(end))
	for i, r := range w.Workloads {
		rv := v.Workloads[i].Verdict
		row := newLane()
		for j, tl := range r.Terminated() {
			if j < len(rv.Pods) {
				overlay(row, podRow(r, tl, rv.Pods[j], col))
			}
		}
		fmt.Fprintf(&b, "%-*s%s\n", width+2, chartLabel(workloadName(r)), strings.TrimRight(string(row), " "))
		for _, tr := range r.Capacity {
			writeStepRows(&b, r, tr, end, width)
		}
	}
	b.WriteString("  axis starts at the first deletion seen on the nodes (0); one row a workload, its pods laid over each other\n")
	b.WriteString(podRowsLegend)
	_, err := io.WriteString(out, b.String())
	return err
}

// overlay lays a pod's row over its workload's: a mark (D, E, T, X, !, G)
// wins over a span, a race (#) over shutting down, preStop or terminating.
func overlay(into, row lane) {
	rank := func(r rune) int {
		if i := strings.IndexRune(" -~=#", r); i >= 0 {
			return i
		}
		return 5
	}
	for c, r := range row {
		if rank(r) > rank(into[c]) {
			into[c] = r
		}
	}
}
