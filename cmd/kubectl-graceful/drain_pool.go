package main

import (
	"context"
	"fmt"

	"github.com/kubectl-graceful/kubectl-graceful/internal/cliutil"
	"github.com/kubectl-graceful/kubectl-graceful/internal/drain/render"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

// runPool drains o.nodes as one pool and prints the JSON report when
// asked. It returns the API error (exit 1), cliutil.Risk() when a node was
// not drained or a dry run found a blocker (exit 2), else nil.
func (o *drainNodeOptions) runPool(ctx context.Context, d *drain.Drainer) error {
	res, err := d.DrainPool(ctx, o.nodes)
	if structured(o.output) {
		if jerr := render.JSON(documentWriter(o.Out, o.output), res); jerr != nil {
			return jerr
		}
	}
	if err != nil {
		return fmt.Errorf("draining the pool: %w", err)
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
