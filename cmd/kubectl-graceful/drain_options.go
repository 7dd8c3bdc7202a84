package main

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

// Complete takes the node names, resolves a bare --dry-run and builds the
// clients, onto the Drainer; it does not call the API server.
func (o *drainNodeOptions) Complete(_ *cobra.Command, args []string) error {
	o.nodeNames = args
	o.completeDryRun()
	o.drainer.DryRun, o.drainer.ServerDryRun = o.dryRun != "none", o.dryRun == "server"
	if o.tty, o.width = terminal(o.Out); o.tty && o.width > 0 && !structured(o.output) {
		o.Out = lineFitter{w: o.Out, width: o.width}
	}
	var err error
	if o.drainer.Client, err = newClient(o.configFlags, drainClientLimits); err != nil {
		return err
	}
	o.drainer.Dynamic, err = newDynamicClient(o.configFlags, drainClientLimits)
	return err
}

// bareDryRun is --dry-run's value when it is given without one, as
// kubectl's AddDryRunFlag marks it (NoOptDefVal "unchanged").
const bareDryRun = "unchanged"

// completeDryRun takes a bare --dry-run as --dry-run=client and says so on
// stderr, in one line, as kubectl's GetDryRunStrategy does
// (k8s.io/kubectl/pkg/cmd/util: "--dry-run is deprecated and can be
// replaced with --dry-run=client."). A mode written after a space is a
// node name to the flag parser: the line names that trap too.
func (o *drainNodeOptions) completeDryRun() {
	if o.dryRun != bareDryRun {
		return
	}
	o.dryRun = "client"
	line := "warning: --dry-run without a value is taken as --dry-run=client, as kubectl does: write --dry-run=client (or --dry-run=server)"
	for _, mode := range []string{"client", "server", "none"} {
		if slices.Contains(o.nodeNames, mode) {
			line += fmt.Sprintf("; %q after it is read as a node name, not as the mode: write --dry-run=%s", mode, mode)
		}
	}
	fmt.Fprintln(o.ErrOut, line)
}

// lookupNodes finds the nodes to drain, retrying through a short outage
// (drain.ThroughOutage). It returns an error naming a node that does not
// exist, or the API error (RBAC, unreachable). --timeout is each node's
// (kubectl's meaning): it bounds the lookup's throttling waits, not its
// 30 s outage window (--request-timeout bounds each read), so that a node
// whose turn a short --timeout ends is still summarised as timed out.
func (o *drainNodeOptions) lookupNodes(ctx context.Context) error {
	b := o.drainer.Backoff
	if o.selector != "" {
		list, err := drain.ThroughOutage(ctx, b, o.drainer.Timeout, func(ctx context.Context) (*corev1.NodeList, error) {
			return o.drainer.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: o.selector})
		})
		if err != nil {
			return fmt.Errorf("listing nodes with -l %s: %w", o.selector, err)
		}
		if len(list.Items) == 0 {
			return errNoMatch("node", o.selector)
		}
		o.nodes = list.Items
		return nil
	}
	for _, name := range o.nodeNames {
		n, err := drain.ThroughOutage(ctx, b, o.drainer.Timeout, func(ctx context.Context) (*corev1.Node, error) {
			return o.drainer.Client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		})
		if apierrors.IsNotFound(err) {
			return nodeNotFound(ctx, o.drainer.Client, name)
		} else if err != nil {
			return err
		}
		o.nodes = append(o.nodes, *n)
	}
	return nil
}

// Validate rejects contradictory or dangerous flags: no node or both names
// and -l, --disable-eviction without --yes-bypass-pdb, unknown --dry-run
// or --output values, invalid selectors, a negative --timeout, a
// non-positive retry delay, --max-concurrent-nodes below 1.
func (o *drainNodeOptions) Validate() error {
	if err := validateNodeArgs(o.nodeNames, o.selector, "drain node NAME... (or -l SELECTOR)"); err != nil {
		return err
	}
	switch {
	case o.drainer.Flags.DisableEviction && !o.yesBypassPDB:
		return errors.New("--disable-eviction deletes pods without checking PodDisruptionBudgets; " +
			"add --yes-bypass-pdb if that is really what you want")
	case !slices.Contains(dryRunModes, o.dryRun):
		return errNotOneOf("--dry-run", o.dryRun, dryRunModes...)
	}
	if err := validateOutput("drain node", o.output, drainFormats...); err != nil {
		return err
	}
	for flag, sel := range map[string]string{"--pod-selector": o.drainer.PodSelector, "--selector": o.selector} {
		if _, err := labels.Parse(sel); err != nil {
			return fmt.Errorf("%s must be a valid label selector: %v", flag, err)
		}
	}
	switch {
	case o.watch && o.dryRun != "none":
		return errors.New("--watch follows the evictions, and --dry-run evicts nothing: use one or the other")
	case o.watch && structured(o.output):
		return fmt.Errorf("--watch prints the watch's lines and verdict as text: -o %s is not supported with it (use watch node -o %s beside the drain)", o.output, o.output)
	case o.watch:
		if err := validatePropagation(o.propagation); err != nil {
			return err
		}
	case o.ingressAPI != "":
		return errors.New("--ingress-api is read by --watch: add --watch")
	}
	if err := validateIngressAPI(o.ingressAPI); err != nil {
		return err
	}
	if err := o.validateDeleteAfter(); err != nil {
		return err
	}
	if err := o.validateSurgeOrder(); err != nil {
		return err
	}
	switch {
	case o.drainer.Timeout < 0:
		// kubectl drain reads a negative --timeout as already expired;
		// one that reads as "no limit" here would surprise either way.
		return fmt.Errorf("--timeout must not be negative (0 waits without limit), not %s", o.drainer.Timeout)
	case o.drainer.MaxConcurrentNodes < 1:
		return fmt.Errorf("--max-concurrent-nodes must be at least 1, not %d", o.drainer.MaxConcurrentNodes)
	case o.drainer.Backoff.Base <= 0 || o.drainer.Backoff.Cap < o.drainer.Backoff.Base:
		return errors.New("--eviction-retry-delay must be > 0 and at most --eviction-retry-max")
	}
	return nil
}
