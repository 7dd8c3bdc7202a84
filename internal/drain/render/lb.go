package render

import (
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

// lbLines says, after the table, what --exclude-from-lb did on the node:
// the label set, the wait for the load balancers, the label removed or
// left after a failure; nothing without it.
func lbLines(w io.Writer, res *drain.NodeResult) {
	name := escape(res.Node)
	if res.ExcludedFromLB {
		fmt.Fprintf(w, "node %s labelled %s by this drain\n", name, corev1.LabelNodeExcludeBalancers)
	}
	if res.LBWait != "" {
		fmt.Fprintf(w, "load balancers: %s\n", escape(res.LBWait))
	}
	switch {
	case res.LBIncluded:
		fmt.Fprintf(w, "label %s removed from node %s (this drain had set it)\n", corev1.LabelNodeExcludeBalancers, name)
	case res.LBIncludeSkipped != "":
		fmt.Fprintf(w, "label %s left on node %s: %s\n", corev1.LabelNodeExcludeBalancers, name, escape(res.LBIncludeSkipped))
	}
}

// outOfLB reports whether the drain left the node out of the load
// balancers: its label set, not removed after a failure.
func outOfLB(res *drain.NodeResult) bool { return res.ExcludedFromLB && !res.LBIncluded }

// outOfLBLine names the command that undoes the cordon and the label.
func outOfLBLine(w io.Writer, name string) {
	fmt.Fprintf(w, "node %s stays cordoned and out of the load balancers; `kubectl graceful uncordon %s` undoes both\n", name, name)
}
