package render

import (
	"cmp"
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
	section(w, "", r.Evict, []string{"NAMESPACE", "WORKLOAD", "ON NODE/REPLICAS", "READY", "GRACE", "PODS"}, width, func(g preflight.OwnerGroup) []string {
		ready, grace := 0, int64(0)
		names := make([]string, len(g.Pods))
		for i, p := range g.Pods {
			names[i] = p.Name
			if p.Ready {
				ready++
			}
			grace = max(grace, p.GracePeriodSeconds)
		}
		return []string{escape(g.Namespace), escape(g.Owner.String()),
			fmt.Sprintf("%d/%d", len(g.Pods), g.Replicas), strconv.Itoa(ready),
			fmt.Sprintf("%ds", grace), escape(strings.Join(names, ", "))}
	})
	section(w, fmt.Sprintf("Not evicted: %d", len(r.Skipped)), r.Skipped, []string{"POD", "WHY"}, width, func(p preflight.PodEntry) []string {
		return []string{escape(p.Namespace + "/" + p.Name), escape(p.Note)}
	})
	terminatingTable(w, r.Terminating, width)
	section(w, "PodDisruptionBudgets:", r.Budgets, []string{"PDB", "PODS ON NODE", "DISRUPTIONS ALLOWED", "HEALTHY/DESIRED", "UNHEALTHY POLICY", "PLAN"}, width, func(b preflight.BudgetEntry) []string {
		return []string{escape(b.Namespace + "/" + b.Name),
			fmt.Sprintf("%d (%d Ready)", len(b.PodsOnNode), b.HealthyOnNode),
			strconv.Itoa(int(b.DisruptionsAllowed)),
			fmt.Sprintf("%d/%d", b.CurrentHealthy, b.DesiredHealthy),
			b.UnhealthyPodEvictionPolicy, b.Plan}
	})
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
	title := fmt.Sprintf("Already terminating (not evicted again, waited for): %d", len(pods))
	section(w, title, pods, []string{"POD", "LAST DELETE", "GRACE DEADLINE", "FINALIZERS", "WAITS ON"}, width, func(t preflight.TerminatingPod) []string {
		deadline := fmt.Sprintf("in %s", time.Duration(-t.SecondsPastDeadline)*time.Second)
		if t.SecondsPastDeadline >= 0 {
			deadline = fmt.Sprintf("passed %s ago", time.Duration(t.SecondsPastDeadline)*time.Second)
		}
		finalizers := cmp.Or(strings.Join(t.Finalizers, ", "), "none")
		return []string{escape(t.Namespace + "/" + t.Name),
			(time.Duration(t.DeletedSecondsAgo) * time.Second).String() + " ago", deadline,
			escape(finalizers), escape(t.WaitsOn)}
	})
}

// serverTable lists the API server's answer to each eviction sent with
// dryRun=All.
func serverTable(w io.Writer, answers []preflight.ServerAnswer, width int) {
	title := "Server dry run (each eviction, or delete with --disable-eviction, sent with dryRun=All):"
	section(w, title, answers, []string{"POD", "ANSWER", "CODE", "CAUSE"}, width, func(a preflight.ServerAnswer) []string {
		code := ""
		if a.Code != 0 {
			code = strconv.Itoa(int(a.Code))
		}
		return []string{escape(a.Namespace + "/" + a.Name), string(a.Answer), code, escape(a.Cause)}
	})
}
