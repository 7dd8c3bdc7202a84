package render

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/table"
	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/nodewatch"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// workloadName is workloadRef of r's workload, "-" when unknown.
func workloadName(r *rollout.Rollout) string {
	if r == nil {
		return "-"
	}
	return workloadRef(r.Workload)
}

// workloadRef names a workload outside the table (chart rows, --wide
// lines, Mermaid sections, -o json's workload) as the verdict's findings,
// the audit's findings and the drain's warnings do: "shop/Deployment/web"
// (inspect.ObjectRef), the kind as the API spells it.
func workloadRef(w rollout.Workload) string {
	return inspect.ObjectRef{Kind: w.Kind, Namespace: w.Namespace, Name: w.Name}.String()
}

// NodeLines is how NodeLinePrinter lays out a line.
type NodeLines struct {
	// Wide prints every column (ms since the first deletion, the server's
	// time, node, workload, pod, track) and the whole message (up to
	// MaxLineMessage).
	Wide bool
	// Stamped leaves out the ms column: each line already starts with a
	// clock (drain node --watch's [+S.sss s]), StampWidth columns wide.
	Stamped    bool
	StampWidth int
}

// NodeLinePrinter prints `watch node` as live lines. By default a line is
// the ms since the first deletion, the node (when several are followed),
// the pod (namespace/name), the track and the message, fitting LineWidth
// columns: long names elided (ElideName), the message cut, a note wrapped
// (the workload is in the table at the end); o.Wide prints every column,
// whole names and the whole message.
func NodeLinePrinter(out io.Writer, o NodeLines) nodewatch.Printer {
	width := LineWidth - o.StampWidth
	// clock is the columns of a line's clock: none under a stamp, unless
	// wide, which adds the server's time.
	clock := func(w *nodewatch.Watch, at time.Time, initial bool, server time.Time) string {
		if o.Stamped && !o.Wide {
			return ""
		}
		return clockHead(msColumn(clockOf(w.T0), at, initial), serverColumn(server), o.Wide)
	}
	line := func(w *nodewatch.Watch, at time.Time, initial bool, server time.Time, node, workload, subject, track, msg string) {
		pre, pad := clock(w, at, initial, server), 36
		switch {
		case o.Wide:
			pre, pad = pre+fmt.Sprintf("%-14s  %-28s  ", termsafe.Escape(node), termsafe.Escape(workload)), 28
		case len(w.Nodes) > 1: // one node is named in the summary
			pre += fmt.Sprintf("%-14s  ", ElideName(termsafe.Escape(node), MaxName))
		}
		_ = writeColumns(out, width, pre, subject, pad, track, msg, o.Wide)
	}
	return nodewatch.Printer{
		PodEvent: func(w *nodewatch.Watch, node string, r *rollout.Rollout, tl *timeline.Timeline, e timeline.Event) {
			if o.Wide || !followsExit(e) {
				line(w, e.Recv, e.Initial, e.Server, node, workloadName(r), tl.Namespace+"/"+tl.Pod, trackText(e.Track), e.Message)
			}
		},
		Capacity: func(w *nodewatch.Watch, service string, s rollout.CapacitySample) {
			line(w, s.Recv, s.Initial, time.Time{}, "-", "-", "Service "+service, "capacity", capacityText(s, "ready at start"))
		},
		Gap: func(w *nodewatch.Watch, g timeline.Gap) {
			if o.Stamped && !o.Wide { // the stamp is the line's clock
				head := fmt.Sprintf("%-13s  ", "watch")
				_, _ = fmt.Fprintf(out, "%s%s\n", head, gapText(g, width-len(head)))
				return
			}
			_ = WriteGapLine(out, clockOf(w.T0), g, o.Wide)
		},
		Note: func(_ *nodewatch.Watch, msg string) {
			_ = writeNote(out, msg, width, o.Wide)
		},
		NodeEvent: func(w *nodewatch.Watch, e nodewatch.NodeEvent) {
			if o.Wide {
				line(w, e.Recv, false, e.Time, e.Node, "-", "Node "+e.Node, "node", e.String())
				return
			}
			// No pod column: the drainer's words get its room.
			head := clock(w, e.Recv, false, time.Time{}) + fmt.Sprintf("%-13s  ", "node")
			_ = writeFitted(out, width, head, "Node "+e.Node+": "+e.String(), "", false)
		},
	}
}

// kindName is a workload as the drain's preflight table writes it beside
// its NAMESPACE column: "Deployment/web", the kind as the API spells it.
func kindName(w rollout.Workload) string { return w.Kind + "/" + w.Name }

// WriteNodeTable writes one row per workload with pods on the nodes: its
// namespace and kindName, as the drain's preflight table does, fitted to
// width columns (a terminal's; 0: not fitted, internal/table).
func WriteNodeTable(out io.Writer, v nodewatch.Verdict, width int) error {
	header := []string{"NAMESPACE", "WORKLOAD", "NODES", "TERMINATED", "RACED", "TOO SHORT", "SIGKILLED", "PRESTOP FAILED", "FEWEST READY", "BELOW START MS", "BUDGET (BELOW DESIREDHEALTHY)", "VERDICT"}
	return writeTable(out, "No evictable pod was on the nodes.", v.Workloads, header, width, func(wr nodewatch.WorkloadResult) []string {
		rv := wr.Verdict
		fewest, below := "-", "-"
		for _, c := range rv.Capacity {
			fewest = fmt.Sprintf("%d of %d (%s)", c.MinReady, c.MinDesired, c.Service)
			below = strconv.FormatInt(c.BelowDesiredMs, 10)
		}
		if wr.CapacityUnknown != "" {
			fewest, below = "unknown ("+wr.CapacityUnknown+")", "unknown"
		}
		word := "safe"
		switch {
		case wr.CannotTell:
			word = "cannot tell"
		case wr.Risk:
			word = "RISK"
		}
		return []string{termsafe.Escape(wr.Workload.Namespace), termsafe.Escape(kindName(wr.Workload)), termsafe.Escape(strings.Join(wr.Nodes, ",")),
			strconv.Itoa(rv.Terminated), strconv.Itoa(rv.Raced), strconv.Itoa(rv.WindowTooShort), strconv.Itoa(rv.Killed), strconv.Itoa(wr.FailedPreStop), termsafe.Escape(fewest), below, termsafe.Escape(budgetCell(wr)), word}
	}, writeNodeCards)
}

// writeTable writes, after a blank line, one row an item under header,
// fitted to width columns (a terminal's; 0: not fitted, internal/table),
// or the line none when there are no items. cards, when given, writes the
// rows in its place on a terminal too narrow for the table's words.
func writeTable[T any](w io.Writer, none string, items []T, header []string, width int, row func(T) []string, cards func(io.Writer, [][]string, int) error) error {
	if len(items) == 0 {
		_, err := io.WriteString(w, "\n"+none+"\n")
		return err
	}
	rows := make([][]string, len(items))
	for i, it := range items {
		rows[i] = row(it)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	if cards != nil && width > 0 {
		var whole strings.Builder
		if err := table.Write(&whole, header, rows, table.Boxed, 0); err != nil {
			return err
		}
		if !table.Fits(whole.String(), width) {
			return cards(w, rows, width)
		}
	}
	return table.Write(w, header, rows, table.Boxed, width)
}

// writeNodeCards writes the rows of WriteNodeTable as one short paragraph
// a workload, for a terminal too narrow for the table's twelve columns
// (they would wrap inside their words): the workload, its nodes and its
// verdict, then its counts, broken between words under it.
func writeNodeCards(out io.Writer, rows [][]string, width int) error {
	for _, r := range rows {
		text := fmt.Sprintf("terminated %s (raced %s, window too short %s, SIGKILLed %s, preStop failed %s); fewest ready %s, %s ms below the start; budget below desiredHealthy: %s",
			r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10])
		body := strings.Join(table.Wrap(text, max(width-4, 20)), "\n    ")
		if _, err := fmt.Fprintf(out, "%s/%s on %s: %s\n    %s\n", r[0], r[1], r[2], r[11], body); err != nil {
			return err
		}
	}
	return nil
}

// WriteNodeVerdict writes the drain's headline and its findings.
func WriteNodeVerdict(out io.Writer, w *nodewatch.Watch, v nodewatch.Verdict) error {
	head := "SAFE: no pod raced its endpoints, had a window too short, was SIGKILLed or failed its preStop, no PodDisruptionBudget was below its desiredHealthy, the nodes were emptied"
	switch {
	case v.Risk && v.CannotTell && len(v.Remaining) == 0 && !slices.ContainsFunc(v.Workloads, func(wr nodewatch.WorkloadResult) bool { return wr.Risk && !wr.CannotTell }):
		head = "CANNOT TELL: facts the verdict needs were not seen (below)"
	case v.Risk:
		head = "RISK: requests can fail during this drain"
	case w.T0.IsZero():
		head = "NO DRAIN SEEN: no pod terminated on the nodes while watched"
	}
	return writeVerdict(out, "Drain verdict for "+termsafe.Escape(strings.Join(w.Nodes, ", ")), head, v.Findings, w.Notes)
}

// budgetCell says, per PodDisruptionBudget of the workload, the time its
// currentHealthy was below its desiredHealthy and the fewest it had;
// "unknown" where its status was not observed (the findings say why).
func budgetCell(wr nodewatch.WorkloadResult) string {
	if wr.BudgetsUnknown != "" {
		return "unknown (" + wr.BudgetsUnknown + ")"
	}
	if len(wr.Budgets) == 0 {
		return "-"
	}
	var out []string
	for _, b := range wr.Budgets {
		switch {
		case b.BelowMs == nil:
			out = append(out, b.Name+": unknown (see the findings)")
		case b.Unknown != "":
			out = append(out, fmt.Sprintf("%s: at least %d ms, fewest %d of %d (see the findings)", b.Name, *b.BelowMs, b.MinCurrentHealthy, b.MinDesiredHealthy))
		default:
			out = append(out, fmt.Sprintf("%s: %d ms, fewest %d of %d", b.Name, *b.BelowMs, b.MinCurrentHealthy, b.MinDesiredHealthy))
		}
	}
	return strings.Join(out, "; ")
}
