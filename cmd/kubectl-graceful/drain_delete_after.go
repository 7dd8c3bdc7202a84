package main

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/kubectl-graceful/kubectl-graceful/internal/cliutil"
	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

// budgetOverrides counts the pods --delete-after deleted past their
// budget and says each on stderr before it happens, in every output
// format: a budget overridden is never silent.
type budgetOverrides struct {
	o *drainNodeOptions
	n atomic.Int32
}

// overriding is drain.Events.BudgetOverridden.
func (b *budgetOverrides) overriding(o drain.BudgetOverride) {
	b.n.Add(1)
	budget := "its PodDisruptionBudget (name unknown: the preflight saw none for it)"
	if o.Budget != "" {
		budget = "PodDisruptionBudget " + o.Budget
	}
	fmt.Fprintln(b.o.ErrOut, termsafe.Escape(fmt.Sprintf(
		"warning: --delete-after %s passed: deleting pod %s/%s on node %s, which %s still refuses to let go; it gets its own grace period",
		b.o.drainer.DeleteAfter, o.Namespace, o.Pod, o.Node, budget)))
}

// exit turns a drain that ended well (err nil) into ExitBudgetOverridden
// when a budget was overridden; any other result keeps its code.
func (b *budgetOverrides) exit(err error) error {
	if err != nil || b.n.Load() == 0 {
		return err
	}
	return &cliutil.ExitCodeError{Code: cliutil.ExitBudgetOverridden}
}

// validateDeleteAfter rejects --delete-after where it cannot be kept: with
// a dry run (nothing is deleted, and the flag would claim otherwise), with
// --disable-eviction (every pod is deleted at once already), below zero.
func (o *drainNodeOptions) validateDeleteAfter() error {
	switch {
	case o.drainer.DeleteAfter < 0:
		return fmt.Errorf("--delete-after must be a positive duration, not %s", o.drainer.DeleteAfter)
	case o.drainer.DeleteAfter == 0:
		return nil
	case o.dryRun != "none":
		return errors.New("--delete-after deletes pods, and --dry-run changes nothing: use one or the other")
	case o.drainer.Flags.DisableEviction:
		return errors.New("--delete-after deletes the pods a budget still refuses, and --disable-eviction deletes every pod at once: use one or the other")
	}
	return nil
}
