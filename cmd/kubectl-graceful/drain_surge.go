package main

import (
	"errors"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// orders are the values --order accepts, preflight's Order constants.
var orders = []string{preflight.OrderNone, preflight.OrderPriority}

// addSurgeOrderFlags binds --surge and --order to o.
func addSurgeOrderFlags(cmd *cobra.Command, f *pflag.FlagSet, o *drainNodeOptions) {
	f.BoolVar(&o.drainer.Flags.Surge, "surge", false, "After the cordon, restart (as 'kubectl rollout restart') each Deployment or Argo Rollout whose Ready pods are all on the node, so that its controller starts replacements elsewhere before removing the old pods; wait for the rollout, then evict what is left. Restarts ALL the workload's pods. One node only.")
	f.StringVar(&o.drainer.Flags.Order, "order", preflight.OrderNone, `Eviction order: "none" (all at once, as kubectl) or "priority" (waves by pod priority, lowest first; honours Cluster API's cluster.x-k8s.io/drain=skip and wait-completed pod labels)`)
	registerCompletions(cmd, map[string]cobra.CompletionFunc{"order": completeValues(orders...)})
}

// validateSurgeOrder rejects --surge with --disable-eviction or with
// several nodes, and an unknown --order.
func (o *drainNodeOptions) validateSurgeOrder() error {
	if o.drainer.Flags.Order != "" && !slices.Contains(orders, o.drainer.Flags.Order) {
		return errNotOneOf("--order", o.drainer.Flags.Order, orders...)
	}
	switch {
	case o.drainer.Flags.Surge && o.drainer.Flags.DisableEviction:
		return errors.New("--surge lets the Deployment controller replace pods before they are evicted, and --disable-eviction deletes them: use one or the other")
	case o.drainer.Flags.Surge && (len(o.nodeNames) > 1 || o.selector != ""):
		return errors.New("--surge drains one node: name a single node (not -l or several names)")
	}
	return nil
}
