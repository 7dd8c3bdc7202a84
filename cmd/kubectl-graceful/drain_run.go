package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/kubectl-graceful/kubectl-graceful/internal/cliutil"
	"github.com/kubectl-graceful/kubectl-graceful/internal/drain/render"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// Run drains one node, or several as a pool (runPool), and prints the JSON report when
// asked. It returns the API error of a node (exit 1), cliutil.Risk() when a
// node was not drained or a dry run found a blocker (exit 2), else nil.
func (o *drainNodeOptions) Run(ctx context.Context) error {
	if o.watch {
		o.Out = &syncWriter{w: o.Out}
	}
	watcher := &drainWatcher{}
	onInterrupt(ctx, watcher.stopNote)
	if err := o.lookupNodes(ctx); err != nil {
		if ctx.Err() != nil {
			// Ctrl-C cut the lookup short: an interruption, not a failure.
			return &cliutil.ExitCodeError{Code: cliutil.ExitRisk, Err: errors.New("interrupted while looking up the nodes; nothing was changed")}
		}
		return err
	}
	var watch *drainWatch
	if o.watch {
		watch = o.startWatch(ctx)
	}
	events := watcher.events(o.view())
	if watch != nil {
		events = watch.events(events)
	}
	overrides := &budgetOverrides{o: o}
	events.BudgetOverridden = overrides.overriding
	events.LBWaiting = o.lbWaiting
	d := o.drainer(events)
	if watch != nil {
		// One watch of each node's pods and of the budgets, for both.
		d.Watches = watch.watches
	}
	if o.flags.DisableEviction {
		fmt.Fprintln(o.ErrOut, "warning: --disable-eviction: pods are deleted without checking PodDisruptionBudgets")
	}
	err := o.drainAll(ctx, d)
	if watch != nil {
		err = watch.finish(err)
	}
	return overrides.exit(err)
}

// drainAll drains one node, or several as a pool (runPool).
func (o *drainNodeOptions) drainAll(ctx context.Context, d *drain.Drainer) error {
	if len(o.nodes) > 1 {
		return o.runPool(ctx, d)
	}
	res, err := d.Drain(ctx, &o.nodes[0])
	one := drain.OneNode(res, err, ctx.Err() != nil)
	if structured(o.output) {
		if jerr := render.JSON(documentWriter(o.Out, o.output), one); jerr != nil {
			return jerr
		}
	}
	if err != nil {
		return fmt.Errorf("node %s: %w", o.nodes[0].Name, err)
	}
	return poolExit(one)
}

// drainer builds the Drainer for the options, telling events what happens.
func (o *drainNodeOptions) drainer(events drain.Events) *drain.Drainer {
	return &drain.Drainer{Client: o.client, Dynamic: o.dynamic, Flags: o.flags, PodSelector: o.podSelector, Timeout: o.timeout,
		DryRun: o.dryRun != "none", ServerDryRun: o.dryRun == "server", UncordonOnFailure: o.uncordonOnFailure,
		Backoff: drain.Backoff{Base: o.retryDelay, Cap: o.retryMax}, PodWarnings: preflight.AuditWarnings,
		Events: events, MaxConcurrentNodes: o.maxConcurrentNodes, DeleteAfter: o.deleteAfter,
		ExcludeFromLB: o.excludeFromLB}
}

// view is what shows the drain as it goes: the text renderer on stdout
// (its progress redrawn in place when stdout is a terminal), or nothing
// with -o json or yaml, whose document is written once at the end.
func (o *drainNodeOptions) view() drain.Events {
	if structured(o.output) {
		return drain.Events{}
	}
	tty, width := terminal(o.Out)
	t := render.NewText(o.Out, tty, width)
	t.SetConcurrentNodes(o.maxConcurrentNodes)
	if o.watch {
		t.SetStamped(stampWidth, o.wide)
	}
	return t.Events()
}
