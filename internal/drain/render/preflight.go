package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// Preflight writes r for a person: pods to evict grouped by workload,
// pods left in place, the PDBs involved, blockers, warnings, the estimate
// and the verdict. width is the terminal's width in columns (0 when w is
// not a terminal): each table's last column wraps to fit it.
func Preflight(w io.Writer, r *preflight.Report, width int) {
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
		drawTable(w, []string{"NAMESPACE", "WORKLOAD", "ON NODE/REPLICAS", "READY", "GRACE", "PODS"}, rows, width)
	}
	if len(r.Skipped) > 0 {
		fmt.Fprintf(w, "Not evicted: %d\n", len(r.Skipped))
		var rows [][]string
		for _, p := range r.Skipped {
			rows = append(rows, []string{escape(p.Namespace + "/" + p.Name), escape(p.Note)})
		}
		drawTable(w, []string{"POD", "WHY"}, rows, width)
	}
	terminatingTable(w, r.Terminating, width)
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
		drawTable(w, []string{"PDB", "PODS ON NODE", "DISRUPTIONS ALLOWED", "HEALTHY/DESIRED", "UNHEALTHY POLICY", "PLAN"}, rows, width)
	}
	surgeSection(w, r, width)
	wavesSection(w, r)
	serverTable(w, r.ServerDryRun, width)
	printIssues(w, "Blockers", r.Blockers)
	printIssues(w, "Warnings", byWorkload(r))
	if r.EstimatedSeconds != nil {
		fmt.Fprintf(w, "Estimated time: %s (longest grace period plus PDB waits)\n",
			time.Duration(*r.EstimatedSeconds)*time.Second)
	}
	fmt.Fprintf(w, "Verdict: %s\n", escape(r.Verdict))
}

func printIssues(w io.Writer, title string, issues []preflight.Issue) {
	if len(issues) == 0 {
		return
	}
	fmt.Fprintf(w, "%s:\n", title)
	for _, i := range issues {
		fmt.Fprintf(w, "  - [%s] %s\n", i.Kind, escape(i.Message))
	}
}

// terminatingTable lists the pods already terminating: when their last
// delete request was, their grace deadline, their finalizers and what they wait on.
func terminatingTable(w io.Writer, pods []preflight.TerminatingPod, width int) {
	if len(pods) == 0 {
		return
	}
	fmt.Fprintf(w, "Already terminating (not evicted again, waited for): %d\n", len(pods))
	var rows [][]string
	for _, t := range pods {
		deadline := fmt.Sprintf("in %s", time.Duration(-t.SecondsPastDeadline)*time.Second)
		if t.SecondsPastDeadline >= 0 {
			deadline = fmt.Sprintf("passed %s ago", time.Duration(t.SecondsPastDeadline)*time.Second)
		}
		finalizers := strings.Join(t.Finalizers, ", ")
		if finalizers == "" {
			finalizers = "none"
		}
		rows = append(rows, []string{escape(t.Namespace + "/" + t.Name),
			(time.Duration(t.DeletedSecondsAgo) * time.Second).String() + " ago", deadline,
			escape(finalizers), escape(t.WaitsOn)})
	}
	drawTable(w, []string{"POD", "LAST DELETE", "GRACE DEADLINE", "FINALIZERS", "WAITS ON"}, rows, width)
}

// serverTable lists the API server's answer to each eviction sent with
// dryRun=All.
func serverTable(w io.Writer, answers []preflight.ServerAnswer, width int) {
	if len(answers) == 0 {
		return
	}
	fmt.Fprintln(w, "Server dry run (each eviction, or delete with --disable-eviction, sent with dryRun=All):")
	var rows [][]string
	for _, a := range answers {
		code := ""
		if a.Code != 0 {
			code = strconv.Itoa(int(a.Code))
		}
		rows = append(rows, []string{escape(a.Namespace + "/" + a.Name), string(a.Answer), code, escape(a.Cause)})
	}
	drawTable(w, []string{"POD", "ANSWER", "CODE", "CAUSE"}, rows, width)
}
