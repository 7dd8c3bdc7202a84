package main

import (
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// drainNodeOptions are the flags and state of `kubectl graceful drain node`.
type drainNodeOptions struct {
	configFlags *genericclioptions.ConfigFlags
	// interrupt is told what the drain waits for once stopped (Ctrl-C).
	interrupt *interrupt

	// nodeNames are the nodes named on the command line.
	nodeNames []string
	// selector selects nodes by label instead (-l, --selector).
	selector string
	// drainer is the library's configuration, the flags bound onto it as
	// kubectl's NewDrainCmdOptions binds them onto drain.Helper; Complete
	// adds the clients and the dry run, Run the Events.
	drainer drain.Drainer
	// dryRun is "none", "client" or "server"; anything but none stops after
	// the preflight (--dry-run).
	dryRun string
	// output is "" for text, "json" or "yaml".
	output string
	// yesBypassPDB confirms --disable-eviction.
	yesBypassPDB bool
	// watch follows the terminations the drain causes (watch node) and
	// judges them; propagation is its --propagation.
	watch       bool
	propagation time.Duration
	// ingressAPI is --ingress-api, the Traefik API the watch reads.
	ingressAPI string
	// wide is --wide: the watch's live lines with every column.
	wide bool
	// tty and width say whether stdout is a terminal and its columns
	// (Complete reads them once: Out is then a lineFitter on it).
	tty   bool
	width int
	nodes []corev1.Node
	genericiooptions.IOStreams
}

// newCmdDrain builds `kubectl graceful drain` with its `node` subcommand.
func newCmdDrain(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams, in *interrupt) *cobra.Command {
	cmd := groupOf(&cobra.Command{
		Use:   "drain",
		Short: "Drain nodes without breaking PodDisruptionBudgets, saying what blocks",
	}, func(arg string) string { return "kubectl graceful drain node " + arg })
	cmd.AddCommand(newCmdDrainNode(newDrainNodeOptions(configFlags, streams, in)))
	return cmd
}

// drainFormats are drain node's -o values ("" for text), dryRunModes its
// --dry-run values.
var (
	drainFormats = []string{"", "json", "yaml"}
	dryRunModes  = []string{"none", "client", "server"}
)

// newDrainNodeOptions are the options with the flags' defaults.
func newDrainNodeOptions(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams, in *interrupt) *drainNodeOptions {
	return &drainNodeOptions{configFlags: configFlags, IOStreams: streams, interrupt: in, dryRun: "none",
		drainer: drain.Drainer{Flags: preflight.Flags{GracePeriodSeconds: -1},
			Backoff: drain.Backoff{Base: time.Second, Cap: 5 * time.Second}, MaxConcurrentNodes: 1}}
}

// newCmdDrainNode builds `drain node` around o, binding every flag to it.
func newCmdDrainNode(o *drainNodeOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "node NAME... | -l SELECTOR",
		Short: "Cordon a node and evict its pods, after a preflight that says what would block",
		Long: `Print a preflight (pods by workload, the PodDisruptionBudgets involved against
disruptionsAllowed, blockers, warnings, an estimate and a verdict), then cordon
the node and evict its pods through the eviction API, showing per pod why an
eviction waits.

Several nodes (names, or -l matching more than one) are drained as a pool: one
preflight for the set, then every node is cordoned before the first eviction
(so no evicted pod lands on a node drained next), then --max-concurrent-nodes
nodes are drained at a time, each eviction held back while its
PodDisruptionBudget allows no disruption across all nodes. The summary gives
each node's result (drained, partly drained, untouched, gone), what is left,
whether it stays cordoned, the evictions per pod and the pods evicted more
than once.

Exit status: 0 drained, every node of a pool (with --dry-run: no blocker), 2
blocked, refused, timed out, interrupted, undone by another client
(uncordoned, new pods), or a node of the pool not drained or deleted (with
--dry-run: a blocker), 1 error (no such node, no node matching -l, an API
error, or the cluster unreachable to the end). With --watch, a drained node
exits 2 when the watch saw a risk (a race, a SIGKILL, a failed preStop, a
Service below its budget). 3: every node drained, but --delete-after deleted
a pod its PodDisruptionBudget still refused.`,
		Example: `  kubectl graceful drain node worker-1 --ignore-daemonsets --dry-run=client
  kubectl graceful drain node worker-1 --ignore-daemonsets --watch
  kubectl graceful drain node -l pool=old --ignore-daemonsets --timeout 10m --uncordon-on-failure
  kubectl graceful drain node -l pool=old --ignore-daemonsets --max-concurrent-nodes 3`,
		ValidArgsFunction: completeNodes(o.configFlags),
		RunE:              runE(o),
	}
	f := cmd.Flags()
	f.StringVarP(&o.selector, "selector", "l", "", "Selector (label query) to filter nodes on")
	f.StringVar(&o.drainer.PodSelector, "pod-selector", "", "Label selector to filter pods on the node")
	f.BoolVar(&o.drainer.Flags.Force, "force", false, "Continue even if there are pods that do not declare a controller.")
	f.BoolVar(&o.drainer.Flags.IgnoreDaemonSets, "ignore-daemonsets", false, "Ignore DaemonSet-managed pods.")
	f.BoolVar(&o.drainer.Flags.DeleteEmptyDirData, "delete-emptydir-data", false, "Continue even if there are pods using emptyDir (local data that will be deleted when the node is drained).")
	f.IntVar(&o.drainer.Flags.GracePeriodSeconds, "grace-period", -1, "Period of time in seconds given to each pod to terminate gracefully. If negative, the default value specified in the pod will be used.")
	f.DurationVar(&o.drainer.Timeout, "timeout", 0, "The length of time to wait before giving up on a node, zero means infinite")
	f.BoolVar(&o.drainer.Flags.DisableEviction, "disable-eviction", false, "Delete pods instead of evicting them, bypassing PodDisruptionBudgets. Refused unless --yes-bypass-pdb is given too.")
	f.BoolVar(&o.yesBypassPDB, "yes-bypass-pdb", false, "Confirm --disable-eviction: PodDisruptionBudgets will not be checked.")
	f.BoolVar(&o.drainer.Flags.EvictDoNotDisrupt, "evict-do-not-disrupt", false, "Evict pods annotated cluster-autoscaler.kubernetes.io/safe-to-evict=false or karpenter.sh/do-not-disrupt=true too.")
	f.StringVar(&o.dryRun, "dry-run", "none", `Must be "none", "client" or "server". Anything but none prints the preflight and stops; server also sends each eviction with dryRun=All and shows the answers. Exit status 2 when it finds a blocker. Without a value: client, with a warning.`)
	f.Lookup("dry-run").NoOptDefVal = bareDryRun
	f.StringVarP(&o.output, "output", "o", "", "Output format: json or yaml (preflight, per-pod results and durations)")
	f.BoolVar(&o.drainer.UncordonOnFailure, "uncordon-on-failure", false, "Uncordon the node when its drain fails or is interrupted, if this command's patch cordoned it and no other client cordoned it again since.")
	f.DurationVar(&o.drainer.Backoff.Base, "eviction-retry-delay", o.drainer.Backoff.Base, "First wait before retrying an eviction a PodDisruptionBudget refused; doubles up to --eviction-retry-max")
	// kubectl waits a fixed 5 s between retries; capping at 5 s keeps this
	// drain never slower than kubectl's while the first retries come sooner.
	f.DurationVar(&o.drainer.Backoff.Cap, "eviction-retry-max", o.drainer.Backoff.Cap, "Longest wait between two eviction requests for one pod")
	f.BoolVar(&o.watch, "watch", false, "Follow the terminations the drain causes, as 'watch node' does, and judge them: which workloads raced their endpoints, which Services ran short (exit 2 for a risk, after the drain's own outcome)")
	addPropagationFlag(f, &o.propagation)
	addIngressAPIFlag(f, &o.ingressAPI)
	addWideFlag(f, &o.wide, " (the server's time, the workload)")
	f.DurationVar(&o.drainer.DeleteAfter, "delete-after", 0, "After this long since a node's evictions started, delete the pods a PodDisruptionBudget still refuses (each named on stderr first, with its own grace period; exit 3). 0: never")
	f.BoolVar(&o.drainer.ExcludeFromLB, "exclude-from-lb", false, "Label each node node.kubernetes.io/exclude-from-external-load-balancers before its evictions, and wait out the deregistration delay the audit reads from the LoadBalancer Services before reporting it drained; --uncordon-on-failure removes the label if this drain set it")
	f.IntVar(&o.drainer.MaxConcurrentNodes, "max-concurrent-nodes", o.drainer.MaxConcurrentNodes, "With several nodes: how many are drained at a time, after all of them are cordoned (1: one after another, as kubectl drain)")
	addSurgeOrderFlags(cmd, f, o)
	registerCompletions(cmd, map[string]cobra.CompletionFunc{
		"output":  completeValues(drainFormats...),
		"dry-run": completeValues(dryRunModes...),
	})
	return cmd
}
