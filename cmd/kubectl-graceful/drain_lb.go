package main

import (
	"fmt"
	"strings"

	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// completionWaiting says on stderr, as it starts, the wait for the pods
// labelled wait-completed (drain.Events.CompletionWaiting), which the
// estimate does not count.
func (o *drainNodeOptions) completionWaiting(node string, pods []string) {
	fmt.Fprintln(o.ErrOut, termsafe.Escape(fmt.Sprintf(
		"node %s: its evictions are done; waiting for %s to complete (%s=%s) before reporting it drained",
		node, strings.Join(pods, ", "), preflight.DrainLabel, preflight.DrainWaitCompleted)))
}

// lbWaiting says on stderr, as it starts, the wait for the load
// balancers' deregistration delay (drain.Events.LBWaiting).
func (o *drainNodeOptions) lbWaiting(w drain.LBWait) {
	fmt.Fprintln(o.ErrOut, termsafe.Escape(fmt.Sprintf(
		"node %s: its pods are gone; waiting %.0f s more for the %d s deregistration delay of %s before reporting it drained (--exclude-from-lb)",
		w.Node, w.RemainingSeconds, w.DelaySeconds, w.From)))
}
