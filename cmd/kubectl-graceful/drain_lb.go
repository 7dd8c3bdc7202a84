package main

import (
	"fmt"

	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

// lbWaiting says on stderr, as it starts, the wait for the load
// balancers' deregistration delay (drain.Events.LBWaiting).
func (o *drainNodeOptions) lbWaiting(w drain.LBWait) {
	fmt.Fprintln(o.ErrOut, termsafe.Escape(fmt.Sprintf(
		"node %s: its pods are gone; waiting %.0f s more for the %d s deregistration delay of %s before reporting it drained (--exclude-from-lb)",
		w.Node, w.RemainingSeconds, w.DelaySeconds, w.From)))
}
