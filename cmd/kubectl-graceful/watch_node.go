package main

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/kubectl-graceful/kubectl-graceful/internal/timeline/render"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/nodewatch"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// watchNodeOptions are the inputs of `kubectl graceful watch node`.
type watchNodeOptions struct {
	watchFlags

	// nodes are the nodes named; selector (-l) picks a pool instead.
	nodes    []string
	selector string
}

// newCmdWatchNode builds `kubectl graceful watch node NAME... | -l SELECTOR`
// around o.
func newCmdWatchNode(o *watchNodeOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "node (NAME... | -l SELECTOR)",
		Short: "Watch the pods of draining nodes terminate and say which workloads raced their endpoints",
		Long: `Follows every pod on the nodes as it terminates, whoever drains them
(kubectl drain, cluster-autoscaler, Karpenter, kured, 'graceful drain node',
plain deletions), each with the same facts and verdict as 'watch pod', and
the ready endpoints of every Service that selects one of those pods against
the ready endpoints it had at start, and its PodDisruptionBudget. It ends
when no pod a drain evicts is left on the nodes (DaemonSet and mirror pods
stay), when every node is deleted, at --timeout, or on Ctrl-C, then prints
a table per workload and one verdict for the drain.

Exit status: 0 safe, 2 a risk was seen (a pod raced its endpoints, was
SIGKILLed or failed its preStop, a Service below its budget, the watch
ended mid-drain with pods still on the nodes), 1 an error (unknown node, no node
matches the selector, the pods cannot be watched).`,
		Example: `  kubectl graceful watch node worker-3
  kubectl graceful watch node -l eks.amazonaws.com/nodegroup=ng-old --timeout 1h
  kubectl graceful watch node worker-3 worker-4 -o json`,
		ValidArgsFunction: completeNodes(o.configFlags),
		RunE:              runE(o),
	}
	f := cmd.Flags()
	f.StringVarP(&o.selector, "selector", "l", "", "Label selector of the nodes to follow (a node pool), instead of names")
	o.add(cmd, watchFlagHelp{settleAfter: "after the nodes are empty", timeout: time.Hour,
		timeoutHelp: "Give up after this long and summarise what was seen (exit 2 with pods still on the nodes once one was deleted; no drain seen is exit 0); 0 means no limit",
		wideAdds:    " (the server's time, the workload)"})
	return cmd
}

// Complete takes the node names and builds the client.
func (o *watchNodeOptions) Complete(_ *cobra.Command, args []string) error {
	o.nodes = args
	return o.complete()
}

// Validate rejects what cannot be watched, before anything is read: the
// node arguments as drain and uncordon refuse them, then the flags.
func (o *watchNodeOptions) Validate() error {
	if err := validateNodeArgs(o.nodes, o.selector, "watch node NAME... (or -l SELECTOR)"); err != nil {
		return err
	}
	return o.validate("watch node")
}

// Run follows the nodes, then prints the summary. It returns
// cliutil.Risk() when the drain verdict found a risk.
func (o *watchNodeOptions) Run(ctx context.Context) error {
	ctx, cancel := o.begin(ctx, stopNote{waiting: "the watches to close, then the drain so far and its verdict",
		skipped: "the summary and the verdict"})
	defer cancel()
	pr := printer(o.sink, render.NodeJSONPrinter, func(w io.Writer) nodewatch.Printer {
		return render.NodeLinePrinter(w, render.NodeLines{Wide: o.wide})
	})
	w, err := nodewatch.Follow(ctx, nodewatch.Config{Client: o.client, Nodes: o.nodes, Selector: o.selector, Settle: o.settle, Printer: pr,
		IngressAPI: o.ingressAPI})
	if w == nil {
		if err = endedBeforeStart(ctx, err, "the nodes"); errors.Is(err, nodewatch.ErrNoNodes) {
			return errNoMatch("node", o.selector)
		}
		return sayNotFound(ctx, o.client, err, "node", "")
	}
	v := nodewatch.ComputeWith(w, timeline.Options{Propagation: o.propagation})
	return watchOutcome(nodeWatchSummary(o.sink.width).write(o.sink, w, v), err, v.Risk)
}

// nodeWatchSummary is watch node's end (and drain --watch's): the chart,
// the table per workload (fitted to width columns, 0 when not a terminal)
// and the verdict, after the live lines.
func nodeWatchSummary(width int) watchSummary[*nodewatch.Watch, nodewatch.Verdict] {
	return watchSummary[*nodewatch.Watch, nodewatch.Verdict]{json: render.WriteNodeJSONSummary,
		verdict: render.WriteNodeVerdict, mermaid: render.WriteNodeMermaid,
		text: []func(io.Writer, *nodewatch.Watch, nodewatch.Verdict) error{render.WriteNodeChart,
			func(w io.Writer, _ *nodewatch.Watch, v nodewatch.Verdict) error {
				return render.WriteNodeTable(w, v, width)
			},
			render.WriteNodeVerdict}}
}
