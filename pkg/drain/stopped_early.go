package drain

import (
	"context"
	"errors"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/eviction"
)

// stoppedOutcome is the outcome of a drain whose node context ended:
// OutcomeTimedOut when --timeout ended it, else OutcomeInterrupted.
func stoppedOutcome(nodeCtx context.Context) Outcome {
	if errors.As(context.Cause(nodeCtx), new(*eviction.TimeoutError)) {
		return OutcomeTimedOut
	}
	return OutcomeInterrupted
}

// stopBeforeEvictions summarises a cordoned node whose drain stopped
// (Ctrl-C, --timeout) before its evictions started, as its pods were
// listed: the list that the stop cut short says nothing of what is on the
// node, so the pods are listed again with a fresh context and reported as
// not evicted, never as none left.
func (d *nodeRun) stopBeforeEvictions(res *NodeResult, outcome Outcome) (*NodeResult, error) {
	tracker, cancel := d.listLeft(res.Node)
	defer cancel()
	return d.stop(res, tracker, outcome, nil)
}

// listLeft lists the pods node's drain would evict, with a context of its
// own (the drain's may have ended), for a summary of what is left. The
// tracker is empty when the list fails; cancel ends the list's context
// once the summary is made.
func (d *nodeRun) listLeft(node string) (*podTracker, context.CancelFunc) {
	listCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	tracker := newTracker(nil, nil)
	if list, _ := d.podsForDeletion(listCtx, node); list != nil {
		tracker = newTracker(list.Pods(), nil)
	}
	return tracker, cancel
}
