package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

// uncordonOptions make nodes schedulable again and take back the load
// balancer label a drain's --exclude-from-lb set (drain.Uncordon).
type uncordonOptions struct {
	configFlags *genericclioptions.ConfigFlags
	genericiooptions.IOStreams

	nodeNames []string
	selector  string
	// dryRun is "none", "client" or "server", as drain node's.
	dryRun string

	client kubernetes.Interface
}

// newCmdUncordon builds `kubectl graceful uncordon`.
func newCmdUncordon(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &uncordonOptions{configFlags: configFlags, IOStreams: streams, dryRun: "none"}
	cmd := &cobra.Command{
		Use:   "uncordon NAME... | -l SELECTOR",
		Short: "Make nodes schedulable again and return them to the load balancers a drain took them out of",
		Long: `Mark the nodes schedulable, as kubectl uncordon does, and in the same patch
remove the label node.kubernetes.io/exclude-from-external-load-balancers where
drain node --exclude-from-lb set it (its kubectl-graceful.dev/excluded-from-lb
annotation says so). A label set by anyone else stays, and the line says so:
since Kubernetes 1.30 that label, not the cordon, keeps a node out of cloud
load balancers.

Exit status: 0 done (or nothing to do), 1 error (no such node, no node
matching -l, an API error; the lines before it say what was already done).`,
		Example: `  kubectl graceful uncordon worker-1
  kubectl graceful uncordon -l pool=old --dry-run=client`,
		ValidArgsFunction: completeNodes(configFlags),
		RunE:              runE(o),
	}
	f := cmd.Flags()
	f.StringVarP(&o.selector, "selector", "l", "", "Selector (label query) to filter nodes on")
	f.StringVar(&o.dryRun, "dry-run", "none", `Must be "none", "client" or "server": client changes nothing and says what would be done, server sends the patch with dryRun=All`)
	registerCompletions(cmd, map[string]cobra.CompletionFunc{"dry-run": completeValues(dryRunModes...)})
	return cmd
}

// Complete takes the node names and builds the client; it does not call
// the API server.
func (o *uncordonOptions) Complete(_ *cobra.Command, args []string) error {
	o.nodeNames = args
	var err error
	o.client, err = newClient(o.configFlags, clientLimits{})
	return err
}

// Validate refuses no node, names with -l, a node named twice and an
// unknown --dry-run.
func (o *uncordonOptions) Validate() error {
	if err := validateNodeArgs(o.nodeNames, o.selector, "uncordon NAME... (or -l SELECTOR)"); err != nil {
		return err
	}
	if !slices.Contains(dryRunModes, o.dryRun) {
		return errNotOneOf("--dry-run", o.dryRun, dryRunModes...)
	}
	return nil
}

// Run finds every node first (nothing changes when one is missing), then
// uncordons them one by one, a line each.
func (o *uncordonOptions) Run(ctx context.Context) error {
	nodes, err := o.findNodes(ctx)
	if err != nil {
		return err
	}
	for _, name := range nodes {
		res, err := drain.Uncordon(ctx, o.client, name, o.dryRun != "none", o.dryRun == "server")
		if err != nil {
			return fmt.Errorf("uncordoning node %s: %w", name, sayNotFound(ctx, o.client, err, "node", ""))
		}
		o.print(res)
	}
	return nil
}

// findNodes returns the named nodes, each read once to fail before any
// change when one does not exist, or the nodes -l selects.
func (o *uncordonOptions) findNodes(ctx context.Context) ([]string, error) {
	if o.selector != "" {
		list, err := o.client.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: o.selector})
		if err != nil {
			return nil, fmt.Errorf("listing nodes with -l %s: %w", o.selector, err)
		}
		if len(list.Items) == 0 {
			return nil, errNoMatch("node", o.selector)
		}
		names := make([]string, len(list.Items))
		for i, n := range list.Items {
			names[i] = n.Name
		}
		return names, nil
	}
	for _, name := range o.nodeNames {
		if _, err := o.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{}); err != nil {
			return nil, sayNotFound(ctx, o.client, err, "node", "")
		}
	}
	return o.nodeNames, nil
}

// print writes res as kubectl uncordon words it ("node/w-1 uncordoned"),
// then what became of the load balancer label.
func (o *uncordonOptions) print(res drain.UncordonResult) {
	suffix := map[string]string{"client": " (dry run)", "server": " (server dry run)"}[o.dryRun]
	node := "node/" + termsafe.Escape(res.Node)
	if res.Uncordoned {
		fmt.Fprintf(o.Out, "%s uncordoned%s\n", node, suffix)
	} else {
		fmt.Fprintf(o.Out, "%s already uncordoned%s\n", node, suffix)
	}
	switch {
	case res.LBLabelRemoved:
		fmt.Fprintf(o.Out, "%s: label %s removed, set by drain node --exclude-from-lb%s\n", node, corev1.LabelNodeExcludeBalancers, suffix)
	case res.LBLabelKept != "":
		fmt.Fprintf(o.Out, "%s: label %s kept: %s\n", node, corev1.LabelNodeExcludeBalancers, res.LBLabelKept)
	}
}
