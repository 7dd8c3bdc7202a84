package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	trender "github.com/kubectl-graceful/kubectl-graceful/internal/timeline/render"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// SetConcurrentNodes tells Text how many nodes of a pool drain run at
// once: above 1, progress is printed as plain lines prefixed with the node
// name (a terminal too: one redrawn view per node would overwrite the
// others).
func (t *Text) SetConcurrentNodes(n int) { t.concurrent = n }

// SetStamped tells Text that its writer starts every line with a clock of
// its own, stampWidth columns wide (drain node --watch): the plain progress
// lines then carry none, one clock a line, and are live lines like the
// watch's: unless wide, each fits the watch's LineWidth columns with the
// stamp, the pod's name elided and the cause cut (the summary has both
// whole).
func (t *Text) SetStamped(stampWidth int, wide bool) {
	t.progress.stamped = true
	if t.width > stampWidth {
		t.width -= stampWidth // the tables too fit after the stamp
	}
	if !wide {
		t.progress.columns = trender.LineWidth - stampWidth
	}
}

// PoolPreflightReady prints the pool's preflight.
func (t *Text) PoolPreflightReady(r *preflight.PoolReport) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pool = true
	PoolPreflight(t.out, r, t.width)
}

// NodesCordoned says that every node of the pool is cordoned, and by whom.
func (t *Text) NodesCordoned(nodes []*drain.NodeResult) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var parts []string
	for _, n := range nodes {
		switch {
		case n.Outcome == drain.OutcomeNodeGone:
			parts = append(parts, escape(n.Node)+" (gone)")
		case n.CordonedByUs:
			parts = append(parts, escape(n.Node))
		default:
			parts = append(parts, escape(n.Node)+" (cordoned before)")
		}
	}
	fmt.Fprintf(t.out, "cordoned %d node(s) before the first eviction: %s\n", len(nodes), strings.Join(parts, ", "))
}

// NodePodChanged prints a pod's new state; with several nodes at once, as
// a line prefixed with its node.
func (t *Text) NodePodChanged(node string, p drain.PodProgress) {
	if t.concurrent <= 1 {
		t.PodChanged(p)
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintln(t.out, t.progress.plainLine(escape(node)+": ", p, t.progress.since(t.started[node])))
}

// PoolDone prints the pool's summary.
func (t *Text) PoolDone(res *drain.PoolResult) {
	t.mu.Lock()
	defer t.mu.Unlock()
	PoolSummary(t.out, res, t.width)
}

// PoolSummary writes how a pool drain ended: one row per node (result, pods
// evicted, pods left, whether it stays cordoned, duration), then the
// evictions per pod and the pods evicted more than once. A dry run or a
// refusal, which changed nothing, is one line.
func PoolSummary(w io.Writer, res *drain.PoolResult, width int) {
	switch res.Outcome {
	case drain.OutcomeDryRun:
		return
	case drain.OutcomeRefused:
		fmt.Fprintln(w, "not draining the pool: the blockers above need a flag or a change; nothing was changed")
		return
	}
	if len(res.Nodes) == 0 {
		if res.Outcome == drain.OutcomeInterrupted {
			fmt.Fprintln(w, "not draining the pool: interrupted during the preflight; nothing was changed")
		}
		return
	}
	var rows [][]string
	counts := map[drain.Outcome]int{}
	for _, n := range res.Nodes {
		counts[n.Result]++
		rows = append(rows, []string{escape(n.Node), poolNodeText(n.Result) + outcomeNote(n), evictedCell(n),
			strconv.Itoa(n.Left), cordonCell(n), seconds(n.DurationSeconds)})
	}
	fmt.Fprintf(w, "\nPool summary: %d node(s), %d drained, %d partly drained, %d untouched, %d gone, in %s\n",
		len(res.Nodes), counts[drain.OutcomeDrained], counts[drain.OutcomePartlyDrained], counts[drain.OutcomeUntouched],
		counts[drain.OutcomeNodeGone], seconds(res.DurationSeconds))
	drawTable(w, []string{"NODE", "RESULT", "EVICTED", "LEFT", "CORDONED", "DURATION"}, rows, width)
	deleted := ""
	if res.DeletedPastBudget > 0 {
		deleted = fmt.Sprintf(", %d pod(s) deleted past their budget (--delete-after)", res.DeletedPastBudget)
	}
	fmt.Fprintf(w, "evictions per pod: %.2f (%d evictions accepted%s, %d pod(s) to evict at the start)\n",
		res.EvictionsPerPod, res.Evictions, deleted, res.InitialPods)
	again := ""
	if len(res.EvictedAgain) > 0 {
		again = ": " + escape(strings.Join(res.EvictedAgain, ", "))
	}
	fmt.Fprintf(w, "pods evicted more than once: %d%s\n", len(res.EvictedAgain), again)
	if res.Outcome != drain.OutcomeDrained {
		fmt.Fprintf(w, "pool NOT drained: %s\n", poolWhy(res))
	}
}

// evictedCell is the node's EVICTED cell: its accepted evictions, and the
// pods --delete-after deleted past their budget, which were not evicted.
func evictedCell(n *drain.PoolNode) string {
	if n.DeletedPastBudget == 0 {
		return strconv.Itoa(n.Evicted)
	}
	return fmt.Sprintf("%d (+%d deleted past budget)", n.Evicted, n.DeletedPastBudget)
}

// outcomeNote adds the node's outcome to its RESULT cell when it says
// more than the result (timed out, interrupted, blocked, undone).
func outcomeNote(n *drain.PoolNode) string {
	switch n.Outcome {
	case drain.OutcomeDrained, drain.OutcomeNodeGone, "":
		return ""
	}
	return " (" + string(n.Outcome) + ")"
}

// cordonCell says whether the node stays cordoned, from the read at the end.
func cordonCell(n *drain.PoolNode) string {
	switch {
	case n.Result == drain.OutcomeNodeGone:
		return "-"
	case n.StaysCordoned == nil:
		return "unknown"
	case n.Uncordoned:
		return "no (uncordoned: --uncordon-on-failure)"
	case !*n.StaysCordoned:
		return "no (another client uncordoned it)"
	case n.CordonedByUs:
		return "yes (by this drain)"
	default:
		return "yes (cordoned before)"
	}
}

// poolWhy says why the pool is not drained.
func poolWhy(res *drain.PoolResult) string {
	switch res.Outcome {
	case drain.OutcomeInterrupted:
		return "interrupted; no new evictions were started"
	case drain.OutcomeError:
		return escape(res.Error)
	}
	return "see the nodes above"
}
