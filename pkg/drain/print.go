package drain

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/termsafe"
)

// escape makes text read from the cluster safe for the terminal.
func escape(s string) string { return termsafe.Escape(s) }

// table renders rows under header with tablewriter, left-aligned.
func table(w io.Writer, header []string, rows [][]string) {
	t := tablewriter.NewTable(w, tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header(header)
	_ = t.Bulk(rows)
	_ = t.Render()
}

// PrintPreflight writes r for a person: pods to evict grouped by workload,
// pods left in place, the PDBs involved, blockers, warnings, the estimate
// and the verdict.
func PrintPreflight(w io.Writer, r *Report) {
	cordoned := "schedulable"
	if r.AlreadyCordoned {
		cordoned = "already cordoned"
	}
	fmt.Fprintf(w, "Preflight for node %s (%s)\n", escape(r.Node), cordoned)
	fmt.Fprintf(w, "Pods to evict: %d\n", r.PodCount())
	if len(r.Evict) > 0 {
		var rows [][]string
		for _, g := range r.Evict {
			ready, grace := 0, int64(0)
			names := make([]string, len(g.Pods))
			for i, p := range g.Pods {
				names[i] = p.Name
				if p.Ready {
					ready++
				}
				grace = max(grace, p.GracePeriodSeconds)
			}
			rows = append(rows, []string{escape(g.Namespace), escape(g.Owner.String()),
				fmt.Sprintf("%d/%d", len(g.Pods), g.Replicas), strconv.Itoa(ready),
				fmt.Sprintf("%ds", grace), escape(strings.Join(names, ", "))})
		}
		table(w, []string{"NAMESPACE", "WORKLOAD", "ON NODE/REPLICAS", "READY", "GRACE", "PODS"}, rows)
	}
	if len(r.Skipped) > 0 {
		fmt.Fprintf(w, "Not evicted: %d\n", len(r.Skipped))
		var rows [][]string
		for _, p := range r.Skipped {
			rows = append(rows, []string{escape(p.Namespace + "/" + p.Name), escape(p.Note)})
		}
		table(w, []string{"POD", "WHY"}, rows)
	}
	if len(r.Budgets) > 0 {
		fmt.Fprintln(w, "PodDisruptionBudgets:")
		var rows [][]string
		for _, b := range r.Budgets {
			rows = append(rows, []string{escape(b.Namespace + "/" + b.Name),
				fmt.Sprintf("%d (%d Ready)", len(b.PodsOnNode), b.HealthyOnNode),
				strconv.Itoa(int(b.DisruptionsAllowed)),
				fmt.Sprintf("%d/%d", b.CurrentHealthy, b.DesiredHealthy),
				b.UnhealthyPodEvictionPolicy, b.Plan})
		}
		table(w, []string{"PDB", "PODS ON NODE", "DISRUPTIONS ALLOWED", "HEALTHY/DESIRED", "UNHEALTHY POLICY", "PLAN"}, rows)
	}
	printIssues(w, "Blockers", r.Blockers)
	printIssues(w, "Warnings", r.Warnings)
	fmt.Fprintf(w, "Estimated time: %s (longest grace period plus PDB waits)\n",
		time.Duration(r.EstimatedSeconds)*time.Second)
	fmt.Fprintf(w, "Verdict: %s\n", escape(r.Verdict))
}

func printIssues(w io.Writer, title string, issues []Issue) {
	if len(issues) == 0 {
		return
	}
	fmt.Fprintf(w, "%s:\n", title)
	for _, i := range issues {
		fmt.Fprintf(w, "  - [%s] %s\n", i.Kind, escape(i.Message))
	}
}

// PrintSummary writes the per-pod table of a finished or stopped drain and
// what it means for the node.
func PrintSummary(w io.Writer, res *NodeResult) {
	var rows [][]string
	counts := map[string]int{}
	for _, p := range res.Pods {
		counts[p.State]++
		rows = append(rows, []string{escape(p.Namespace + "/" + p.Name), p.State, strconv.Itoa(p.Attempts),
			seconds(p.StartedSeconds), seconds(p.DurationSeconds), escape(p.Cause)})
	}
	if len(rows) > 0 {
		table(w, []string{"POD", "RESULT", "ATTEMPTS", "STARTED", "DURATION", "LAST CAUSE"}, rows)
	}
	name := escape(res.Node)
	switch res.Outcome {
	case OutcomeDrained:
		fmt.Fprintf(w, "node %s drained: %d pod(s) evicted in %s\n", name, counts[StateGone], seconds(res.DurationSeconds))
		return
	case OutcomeTimedOut:
		fmt.Fprintf(w, "node %s NOT drained: --timeout reached\n", name)
	case OutcomeInterrupted:
		fmt.Fprintf(w, "node %s NOT drained: interrupted; no new evictions were started\n", name)
	case OutcomeBlocked:
		fmt.Fprintf(w, "node %s NOT drained: evictions were refused\n", name)
	default:
		fmt.Fprintf(w, "node %s NOT drained: %s\n", name, escape(res.Error))
	}
	left := len(res.Pods) - counts[StateGone]
	fmt.Fprintf(w, "evicted: %d, still on the node: %d (%d terminating, %d not evicted, %d failed)\n",
		counts[StateGone], left, counts[StateTerminating], counts[StateStopped]+counts[StateBlocked]+counts[StatePending]+counts[StateEvicting], counts[StateFailed])
	switch {
	case res.Uncordoned:
		fmt.Fprintf(w, "node %s uncordoned again (--uncordon-on-failure; this drain had cordoned it)\n", name)
	case res.CordonedByUs:
		fmt.Fprintf(w, "node %s stays cordoned; `kubectl uncordon %s` makes it schedulable again\n", name, name)
	default:
		fmt.Fprintf(w, "node %s stays cordoned (it was cordoned before this drain, so it is left so)\n", name)
	}
}

func seconds(s float64) string {
	return (time.Duration(s*10) * time.Second / 10).String()
}
