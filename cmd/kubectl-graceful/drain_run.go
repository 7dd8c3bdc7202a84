package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/kubectl-graceful/kubectl-graceful/internal/cliutil"
	"github.com/kubectl-graceful/kubectl-graceful/internal/drain/render"
	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// Run drains one node, or several as a pool (drainAll), and prints the JSON report when
// asked. It returns the API error of a node (exit 1), cliutil.Risk() when a
// node was not drained or a dry run found a blocker (exit 2), else nil.
func (o *drainNodeOptions) Run(ctx context.Context) error {
	watcher := newDrainWatcher()
	o.interrupt.onStop(watcher.stopNote)
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
	events.CompletionWaiting = o.completionWaiting
	// The Drainer the flags configured, with the audit's error-level
	// findings in its preflight.
	d := o.drainer
	d.Events, d.PodWarnings = events, preflight.AuditWarnings
	if watch != nil {
		// One watch of each node's pods and of the budgets, for both.
		d.Watches = watch.watches
	}
	if o.drainer.Flags.DisableEviction {
		fmt.Fprintln(o.ErrOut, "warning: --disable-eviction: pods are deleted without checking PodDisruptionBudgets")
	}
	err := o.drainAll(ctx, &d)
	if watch != nil {
		err = watch.finish(err)
	}
	return overrides.exit(err)
}

// drainAll drains one node, or several as a pool (DrainPool), and prints
// the JSON report when asked. It returns the API error (exit 1),
// cliutil.Risk() when a node was not drained or a dry run found a blocker
// (exit 2), else nil.
func (o *drainNodeOptions) drainAll(ctx context.Context, d *drain.Drainer) error {
	var res *drain.PoolResult
	var err error
	what := "draining the pool"
	if len(o.nodes) > 1 {
		res, err = d.DrainPool(ctx, o.nodes)
	} else {
		var one *drain.NodeResult
		one, err = d.Drain(ctx, &o.nodes[0])
		res, what = drain.OneNode(one, err, ctx.Err() != nil), "node "+o.nodes[0].Name
	}
	// One document of one shape, a pool's, whatever the number of nodes.
	if structured(o.output) {
		if jerr := termsafe.WriteJSON(documentWriter(o.Out, o.output), res); jerr != nil {
			return jerr
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return poolExit(res)
}

// poolExit returns nil when every node drained (a dry run: no blocker),
// else cliutil.Risk(). One node's result is a pool's too (drain.OneNode).
func poolExit(res *drain.PoolResult) error {
	switch res.Outcome {
	case drain.OutcomeDrained:
		return nil
	case drain.OutcomeDryRun:
		if res.Preflight != nil && !res.Preflight.Blocked() {
			return nil
		}
	}
	return cliutil.Risk()
}

// view is what shows the drain as it goes: the text renderer on stdout
// (its progress redrawn in place when stdout is a terminal), or nothing
// with -o json or yaml, whose document is written once at the end.
func (o *drainNodeOptions) view() drain.Events {
	if structured(o.output) {
		return drain.Events{}
	}
	// Under --watch the lines are stamped, never redrawn in place.
	t := render.NewText(o.Out, o.tty && !o.watch, o.width)
	t.SetConcurrentNodes(o.drainer.MaxConcurrentNodes)
	if o.watch {
		t.SetStamped(stampWidth, o.wide)
	}
	return t.Events()
}
