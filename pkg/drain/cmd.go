package drain

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/cliutil"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/termsafe"
)

// ClientQPS and ClientBurst are the client-side rate limits of the drain's
// API client, in requests per second and requests (client-go's defaults
// are 5 and 10).
const (
	ClientQPS   = 50
	ClientBurst = 100
)

// Options are the flags and state of `kubectl graceful drain node`.
type Options struct {
	configFlags *genericclioptions.ConfigFlags

	// NodeNames are the nodes named on the command line.
	NodeNames []string
	// Selector selects nodes by label instead (-l, --selector).
	Selector string
	// PodSelector limits the drain to pods matching it (--pod-selector).
	PodSelector string
	Flags       Flags
	// Timeout bounds each node's evictions; 0 waits forever (--timeout).
	Timeout time.Duration
	// DryRun is "none", "client" or "server"; anything but none stops after
	// the preflight (--dry-run).
	DryRun string
	// Output is "" for text or "json".
	Output string
	// UncordonOnFailure uncordons a node this command cordoned when its drain fails.
	UncordonOnFailure bool
	// YesBypassPDB confirms --disable-eviction.
	YesBypassPDB bool
	// RetryDelay and RetryMax are the first and the longest wait between two
	// eviction requests for a pod a PodDisruptionBudget refused.
	RetryDelay time.Duration
	RetryMax   time.Duration

	client kubernetes.Interface
	nodes  []corev1.Node
	genericiooptions.IOStreams
}

// NewCmdDrain builds `kubectl graceful drain` with its `node` subcommand.
func NewCmdDrain(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "drain",
		Short: "Drain nodes without breaking PodDisruptionBudgets, saying what blocks",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newCmdDrainNode(configFlags, streams))
	return cmd
}

func newCmdDrainNode(configFlags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := &Options{configFlags: configFlags, IOStreams: streams, DryRun: "none",
		Flags: Flags{GracePeriodSeconds: -1}, RetryDelay: time.Second, RetryMax: 5 * time.Second}
	cmd := &cobra.Command{
		Use:   "node NAME... | -l SELECTOR",
		Short: "Cordon a node and evict its pods, after a preflight that says what would block",
		Long: `Print a preflight (pods by workload, the PodDisruptionBudgets involved against
disruptionsAllowed, blockers, warnings, an estimate and a verdict), then cordon
the node and evict its pods through the eviction API, showing per pod why an
eviction waits. Several nodes are drained one after another.

Exit status: 0 drained (with --dry-run: no blocker), 2 blocked, timed out or
interrupted (with --dry-run: a blocker), 1 error.`,
		Example: `  kubectl graceful drain node worker-1 --ignore-daemonsets --dry-run
  kubectl graceful drain node -l pool=old --ignore-daemonsets --timeout 10m --uncordon-on-failure`,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			// After the first signal, a second one kills as usual.
			context.AfterFunc(ctx, stop)
			if err := o.Complete(args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(ctx)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Selector, "selector", "l", "", "Selector (label query) to filter nodes on")
	f.StringVar(&o.PodSelector, "pod-selector", "", "Label selector to filter pods on the node")
	f.BoolVar(&o.Flags.Force, "force", false, "Continue even if there are pods that do not declare a controller.")
	f.BoolVar(&o.Flags.IgnoreDaemonSets, "ignore-daemonsets", false, "Ignore DaemonSet-managed pods.")
	f.BoolVar(&o.Flags.DeleteEmptyDirData, "delete-emptydir-data", false, "Continue even if there are pods using emptyDir (local data that will be deleted when the node is drained).")
	f.IntVar(&o.Flags.GracePeriodSeconds, "grace-period", -1, "Period of time in seconds given to each pod to terminate gracefully. If negative, the default value specified in the pod will be used.")
	f.DurationVar(&o.Timeout, "timeout", 0, "The length of time to wait before giving up on a node, zero means infinite")
	f.BoolVar(&o.Flags.DisableEviction, "disable-eviction", false, "Delete pods instead of evicting them, bypassing PodDisruptionBudgets. Refused unless --yes-bypass-pdb is given too.")
	f.BoolVar(&o.YesBypassPDB, "yes-bypass-pdb", false, "Confirm --disable-eviction: PodDisruptionBudgets will not be checked.")
	f.BoolVar(&o.Flags.EvictDoNotDisrupt, "evict-do-not-disrupt", false, "Evict pods annotated cluster-autoscaler.kubernetes.io/safe-to-evict=false or karpenter.sh/do-not-disrupt=true too.")
	f.StringVar(&o.DryRun, "dry-run", "none", `Must be "none", "client" or "server". Anything but none prints the preflight and stops; exit status 2 when it finds a blocker.`)
	f.Lookup("dry-run").NoOptDefVal = "client"
	f.StringVarP(&o.Output, "output", "o", "", "Output format: json (preflight, per-pod results and durations)")
	f.BoolVar(&o.UncordonOnFailure, "uncordon-on-failure", false, "Uncordon the node when its drain fails or is interrupted, if this command cordoned it.")
	f.DurationVar(&o.RetryDelay, "eviction-retry-delay", o.RetryDelay, "First wait before retrying an eviction a PodDisruptionBudget refused; doubles up to --eviction-retry-max")
	// kubectl waits a fixed 5 s between retries; capping at 5 s keeps this
	// drain never slower than kubectl's while the first retries come sooner.
	f.DurationVar(&o.RetryMax, "eviction-retry-max", o.RetryMax, "Longest wait between two eviction requests for one pod")
	return cmd
}

// Complete takes the node names and builds the client; it does not call
// the API server.
func (o *Options) Complete(args []string) error {
	o.NodeNames = args
	cfg, err := o.configFlags.ToRESTConfig()
	if err != nil {
		return err
	}
	// The library polls each evicted pod every second and re-reads each
	// refused pod before a retry: client-go's default 5 requests/s would
	// make a drain of more than a few pods wait on the client, not on the
	// cluster. The API server's priority and fairness still applies.
	cfg.QPS, cfg.Burst = ClientQPS, ClientBurst
	o.client, err = kubernetes.NewForConfig(cfg)
	return err
}

// lookupNodes finds the nodes to drain. It returns an error naming a node
// that does not exist, or the API error (RBAC, unreachable).
func (o *Options) lookupNodes(ctx context.Context) error {
	if o.Selector != "" {
		list, err := o.client.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: o.Selector})
		if err != nil {
			return fmt.Errorf("listing nodes with -l %s: %w", o.Selector, err)
		}
		if len(list.Items) == 0 {
			return fmt.Errorf("no node matches -l %s", o.Selector)
		}
		o.nodes = list.Items
		return nil
	}
	for _, name := range o.NodeNames {
		n, err := o.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return fmt.Errorf("node %q not found", name)
		} else if err != nil {
			return err
		}
		o.nodes = append(o.nodes, *n)
	}
	return nil
}

// Validate rejects contradictory or dangerous flags: no node or both names
// and -l, --disable-eviction
// without --yes-bypass-pdb, unknown --dry-run or --output values, invalid
// selectors, a non-positive retry delay.
func (o *Options) Validate() error {
	switch {
	case len(o.NodeNames) == 0 && o.Selector == "":
		return errors.New("name a node, or select nodes with -l SELECTOR")
	case len(o.NodeNames) > 0 && o.Selector != "":
		return errors.New("name nodes or use -l SELECTOR, not both")
	}
	if o.Flags.DisableEviction && !o.YesBypassPDB {
		return errors.New("--disable-eviction deletes pods without checking PodDisruptionBudgets; " +
			"add --yes-bypass-pdb if that is really what you want")
	}
	switch o.DryRun {
	case "none", "client", "server":
	default:
		return fmt.Errorf(`--dry-run must be "none", "client" or "server", not %q`, o.DryRun)
	}
	if o.Output != "" && o.Output != "json" {
		return fmt.Errorf("--output %q is not supported for drain: use json or leave it out", o.Output)
	}
	for flag, sel := range map[string]string{"--pod-selector": o.PodSelector, "--selector": o.Selector} {
		if _, err := labels.Parse(sel); err != nil {
			return fmt.Errorf("%s must be a valid label selector: %v", flag, err)
		}
	}
	if o.RetryDelay <= 0 || o.RetryMax < o.RetryDelay {
		return errors.New("--eviction-retry-delay must be > 0 and at most --eviction-retry-max")
	}
	return nil
}

// jsonReport is the -o json document.
type jsonReport struct {
	Nodes []*NodeResult `json:"nodes"`
}

// Run drains the nodes one after another and prints the JSON report when
// asked. It returns the API error of a node (exit 1), cliutil.Risk() when a
// node was not drained or a dry run found a blocker (exit 2), else nil.
func (o *Options) Run(ctx context.Context) error {
	if err := o.lookupNodes(ctx); err != nil {
		return err
	}
	d := o.drainer()
	if o.Flags.DisableEviction {
		fmt.Fprintln(o.ErrOut, "warning: --disable-eviction: pods are deleted without checking PodDisruptionBudgets")
	}
	var results []*NodeResult
	var runErr error
	for i := range o.nodes {
		if ctx.Err() != nil {
			break
		}
		res, err := d.Drain(ctx, &o.nodes[i])
		results = append(results, res)
		if err != nil {
			runErr = fmt.Errorf("node %s: %w", o.nodes[i].Name, err)
			break
		}
	}
	if o.Output == "json" {
		enc := termsafe.NewJSONEncoder(o.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(jsonReport{Nodes: results}); err != nil {
			return err
		}
	}
	if runErr != nil {
		return runErr
	}
	return exitFor(results, len(o.nodes))
}

// exitFor returns cliutil.Risk() unless every one of want nodes drained,
// or, for a dry run, had no blocker.
func exitFor(results []*NodeResult, want int) error {
	if len(results) < want {
		return cliutil.Risk()
	}
	for _, r := range results {
		ok := r.Outcome == OutcomeDrained || r.Outcome == OutcomeDryRun && len(r.Preflight.Blockers) == 0
		if !ok {
			return cliutil.Risk()
		}
	}
	return nil
}

// drainer builds the Drainer for the options: progress on stdout (redrawn
// when it is a terminal), nothing but JSON with -o json.
func (o *Options) drainer() *Drainer {
	d := &Drainer{Client: o.client, Flags: o.Flags, PodSelector: o.PodSelector, Timeout: o.Timeout,
		DryRun: o.DryRun != "none", UncordonOnFailure: o.UncordonOnFailure,
		Backoff: Backoff{Base: o.RetryDelay, Cap: o.RetryMax}, PodWarnings: auditWarnings, Out: o.Out}
	if o.Output == "json" {
		d.Out = io.Discard
		return d
	}
	tty, width := false, 0
	if f, ok := o.Out.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		tty = true
		width, _, _ = term.GetSize(int(f.Fd()))
	}
	d.Progress = NewProgress(o.Out, tty, width)
	return d
}
