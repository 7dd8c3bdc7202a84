package render

import (
	"fmt"
	"io"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

// PoolPreflight writes the preflight of a pool drain for a person: each
// node's preflight (as if every node of the pool were cordoned), then the
// pool's blockers, warnings, estimate and verdict. width is the terminal's
// width in columns (0 when w is not a terminal).
func PoolPreflight(w io.Writer, r *drain.PoolPreflightReport, width int) {
	for _, n := range r.Nodes {
		Preflight(w, n, width)
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "Pool of %d node(s): %d pod(s) to evict\n", len(r.Nodes), r.PodCount())
	printIssues(w, "Pool blockers", r.Blockers)
	printIssues(w, "Pool warnings", r.Warnings)
	if r.EstimatedSeconds != nil {
		fmt.Fprintf(w, "Pool estimated time: %s\n", time.Duration(*r.EstimatedSeconds)*time.Second)
	}
	fmt.Fprintf(w, "Pool verdict: %s\n", escape(r.Verdict))
}
