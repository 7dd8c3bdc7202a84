package drain

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
)

// UncordonResult is what Uncordon did, or with a dry run would do, to a
// node.
type UncordonResult struct {
	Node string `json:"node"`
	// Uncordoned is true when spec.unschedulable was cleared; false when
	// the node was schedulable already.
	Uncordoned bool `json:"uncordoned"`
	// LBLabelRemoved is true when node.kubernetes.io/exclude-from-external-load-balancers
	// was removed with the cordon: a drain's --exclude-from-lb had set it
	// (excludedFromLBAnnotation).
	LBLabelRemoved bool `json:"lbLabelRemoved"`
	// LBLabelKept says why that label stays on the node; "" when the node
	// has none or it was removed.
	LBLabelKept string `json:"lbLabelKept,omitempty"`
}

// uncordonManager is the field manager of Uncordon's patch.
const uncordonManager = "kubectl-graceful-uncordon"

// Uncordon makes node schedulable again, whoever cordoned it, as kubectl
// uncordon does (k8s.io/kubectl/pkg/cmd/drain), and in the same patch
// removes node.kubernetes.io/exclude-from-external-load-balancers when a
// drain's --exclude-from-lb set it: excludedFromLBAnnotation is on the
// node and names a drain's field manager. A label anybody else set stays,
// and LBLabelKept says so: since Kubernetes 1.19
// (kubernetes/kubernetes#90823) that label, not the cordon, keeps a node
// out of the cloud load balancers.
//
// The patch is preconditioned on the resourceVersion read; a 409 Conflict
// reads the node again. serverDryRun sends it as a dry run (nothing is
// stored); dryRun alone sends nothing and returns what would be done.
// The error is the API server's (the node's NotFound among them).
func Uncordon(ctx context.Context, client kubernetes.Interface, node string, dryRun, serverDryRun bool) (UncordonResult, error) {
	var res UncordonResult
	err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		n, err := client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return err
		}
		var body string
		res, body = uncordonPatch(n)
		if body == "" || (dryRun && !serverDryRun) {
			return nil
		}
		opts := metav1.PatchOptions{FieldManager: uncordonManager}
		if serverDryRun {
			opts.DryRun = []string{metav1.DryRunAll}
		}
		_, err = client.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, []byte(body), opts)
		return err
	})
	return res, err
}

// uncordonPatch is what Uncordon does to n: its result and the JSON merge
// patch, "" when there is nothing to change.
func uncordonPatch(n *corev1.Node) (UncordonResult, string) {
	res := UncordonResult{Node: n.Name, Uncordoned: n.Spec.Unschedulable}
	var metadata []string
	_, labelled := n.Labels[corev1.LabelNodeExcludeBalancers]
	setBy, annotated := n.Annotations[excludedFromLBAnnotation]
	ours := annotated && strings.HasPrefix(setBy, drainManagerPrefix)
	switch {
	case labelled && ours:
		res.LBLabelRemoved = true
		metadata = append(metadata, fmt.Sprintf(`"labels":{%q:null}`, corev1.LabelNodeExcludeBalancers))
	case labelled:
		res.LBLabelKept = "not set by a drain of kubectl graceful (no " + excludedFromLBAnnotation + " annotation naming one)"
	}
	if annotated && (ours || !labelled) {
		// Our record goes with our label, or alone when the label is gone.
		metadata = append(metadata, fmt.Sprintf(`"annotations":{%q:null}`, excludedFromLBAnnotation))
	}
	if !res.Uncordoned && len(metadata) == 0 {
		return res, ""
	}
	metadata = append(metadata, fmt.Sprintf(`"resourceVersion":%q`, n.ResourceVersion))
	body := `{"metadata":{` + strings.Join(metadata, ",") + `}`
	if res.Uncordoned {
		// false is the field's zero value: the API server omits it.
		body += `,"spec":{"unschedulable":null}`
	}
	return res, body + "}"
}
