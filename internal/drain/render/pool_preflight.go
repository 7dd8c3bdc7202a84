package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/drain/amount"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// PoolPreflight writes r for a person: each node's preflight (as Preflight
// writes it, with the pool cordoned), then what only the whole pool shows:
// the capacity outside the pool, the budgets across it, the nodes that can
// drain together, the pool's blockers and warnings, the estimate and the
// verdict. width is the terminal's width in columns (0 when w is not a
// terminal).
func PoolPreflight(w io.Writer, r *preflight.PoolReport, width int) {
	for _, n := range r.Nodes {
		Preflight(w, n, width)
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "Pool preflight: %d node(s), %d pod(s) to evict, %d node(s) at a time, every node cordoned first\n",
		len(r.Nodes), r.PodCount(), r.MaxConcurrentNodes)
	if r.Capacity != nil {
		capacityTable(w, r.Capacity, width)
	}
	poolBudgetTable(w, r.Budgets, width)
	if len(r.DrainTogether) > 0 {
		fmt.Fprintln(w, "Nodes that can drain together (no budget shared beyond what it allows at once):")
		for _, g := range r.DrainTogether {
			fmt.Fprintf(w, "  - %s\n", escape(strings.Join(g, ", ")))
		}
	}
	printIssues(w, "Pool blockers", r.Blockers)
	printIssues(w, "Pool warnings", r.Warnings)
	if r.EstimatedSeconds != nil {
		ideal := ""
		if r.IdealSeconds != nil {
			ideal = fmt.Sprintf("; ideal under the budgets %s", seconds(*r.IdealSeconds))
		}
		fmt.Fprintf(w, "Pool estimated time: %s, %d node(s) at a time (budget waves, retry delays and grace periods%s)\n",
			time.Duration(*r.EstimatedSeconds)*time.Second, r.MaxConcurrentNodes, ideal)
	}
	fmt.Fprintf(w, "Pool verdict: %s\n", escape(r.Verdict))
}

// capacityTable writes what the replacements request against what the
// nodes outside the pool have free, and the pods that fit nowhere.
func capacityTable(w io.Writer, c *preflight.CapacityReport, width int) {
	free := "FREE OUTSIDE POOL"
	if !c.UsageKnown {
		free += " (ALLOCATABLE, USAGE UNKNOWN)"
	}
	nodes := strconv.Itoa(c.NodesOutside)
	if c.NodesOutsideUnschedulable > 0 {
		nodes += fmt.Sprintf(" (+%d cordoned or not Ready)", c.NodesOutsideUnschedulable)
	}
	if c.NodesOutsideUnmatched > 0 {
		nodes += fmt.Sprintf(" (+%d the pods may not use)", c.NodesOutsideUnmatched)
	}
	fmt.Fprintln(w, "Capacity outside the pool (requests of the pods to replace; first-fit packing, pod anti-affinity and topology spread not counted):")
	rows := [][]string{}
	for _, rc := range c.Resources {
		rows = append(rows, []string{escape(rc.Name), escape(amount.Format(rc.Name, rc.Needed)),
			escape(amount.Format(rc.Name, rc.FreeOutside)), nodes})
	}
	drawTable(w, []string{"RESOURCE", "NEEDED", free, "NODES OUTSIDE"}, rows, width)
	title := fmt.Sprintf("Pods that fit nowhere outside the pool: %d", len(c.Unplaced))
	section(w, title, c.Unplaced, []string{"POD", "FROM NODE", "WHY"}, width, func(u preflight.UnplacedPod) []string {
		return []string{escape(u.Pod), escape(u.Node), escape(u.Reason)}
	})
}

// poolBudgetTable writes each PodDisruptionBudget counted across the pool.
func poolBudgetTable(w io.Writer, budgets []preflight.PoolBudget, width int) {
	section(w, "PodDisruptionBudgets across the pool:", budgets, []string{"PDB", "PODS IN POOL", "ALLOWED", "WAVES", "NODES"}, width, func(b preflight.PoolBudget) []string {
		waves := fmt.Sprintf("%d (%d per wave, ~%s each)", b.Waves, b.PerWave, seconds(b.WaveSeconds))
		if b.Blocked {
			waves = "blocked"
		}
		return []string{escape(b.Namespace + "/" + b.Name), fmt.Sprintf("%d (%d Ready)", b.PodsInPool, b.HealthyInPool),
			strconv.Itoa(int(b.DisruptionsAllowed)), waves, escape(strings.Join(b.Nodes, ", "))}
	})
}
