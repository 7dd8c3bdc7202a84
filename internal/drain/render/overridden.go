package render

import (
	"fmt"
	"io"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

// overriddenLine names, after the table, each pod --delete-after deleted
// past its PodDisruptionBudget, with the budget; nothing when none was.
func overriddenLine(w io.Writer, res *drain.NodeResult) {
	for _, p := range res.Pods {
		if !p.DeletedPastBudget {
			continue
		}
		budget := "its PodDisruptionBudget (name unknown)"
		if p.Budget != "" {
			budget = "PodDisruptionBudget " + escape(p.Budget)
		}
		fmt.Fprintf(w, "BUDGET OVERRIDDEN: pod %s deleted past %s (--delete-after)\n", escape(p.Namespace+"/"+p.Name), budget)
	}
}
