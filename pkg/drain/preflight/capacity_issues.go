package preflight

import (
	"fmt"
	"strings"

	"github.com/kubectl-graceful/kubectl-graceful/internal/drain/amount"
)

// capacityIssues adds the capacity blocker and warnings of r.Capacity.
func capacityIssues(r *PoolReport) {
	c := r.Capacity
	if n := len(c.NotReplaced); n > 0 {
		r.Warnings = append(r.Warnings, Issue{Kind: WarningPoolNotReplaced, Message: fmt.Sprintf(
			"%d evicted pod(s) have no controller (%s): they are deleted, and nothing recreates them elsewhere",
			n, firstFew(c.NotReplaced))})
	}
	if !c.UsageKnown {
		r.Warnings = append(r.Warnings, Issue{Kind: WarningPoolCapacityUnknown, Message: fmt.Sprintf(
			"the requests of the pods already on the nodes outside the pool are unknown (%s): "+
				"the free room counted is their whole allocatable, so the pods may not fit even where this says they do",
			c.UsageError)})
	}
	if len(c.Unplaced) == 0 {
		return
	}
	msg := fmt.Sprintf("no schedulable node outside the pool the pods may use (%d cordoned or not Ready, "+
		"%d matching none of their nodeSelector, affinity and tolerations): nowhere for the %d pod(s) to go, "+
		"which request %s; add nodes outside the pool or drain fewer nodes",
		c.NodesOutsideUnschedulable, c.NodesOutsideUnmatched, len(c.Unplaced), joinAmounts(c.Resources, false))
	if c.NodesOutside > 0 {
		why := make([]string, len(c.Unplaced))
		for i, u := range c.Unplaced {
			why[i] = u.Pod + ": " + u.Reason
		}
		msg = fmt.Sprintf("the pods the pool evicts request %s; the %d schedulable node(s) outside it they may use have %s free: "+
			"%d pod(s) would fit nowhere (%s) and stay Pending; add room outside the pool or drain fewer nodes "+
			"(first-fit packing of requests, nodeSelector, affinity and taints; pod anti-affinity and topology spread not counted)",
			joinAmounts(c.Resources, false), c.NodesOutside, joinAmounts(c.Resources, true), len(c.Unplaced), firstFew(why))
	}
	r.Blockers = append(r.Blockers, Issue{Kind: BlockerPoolNoCapacity, Refuses: true,
		Message: msg + "; the drain does not start: waiting will not help"})
}

// joinAmounts writes the needed (or free) amount of each resource,
// "12 CPU / 24 GiB / 40 pods".
func joinAmounts(rs []ResourceCapacity, free bool) string {
	parts := make([]string, len(rs))
	for i, rc := range rs {
		v := rc.Needed
		if free {
			v = rc.FreeOutside
		}
		parts[i] = amount.Format(rc.Name, v)
	}
	return strings.Join(parts, " / ")
}

// firstFew joins the first three of items, saying how many more there are.
func firstFew(items []string) string {
	const n = 3
	if len(items) <= n {
		return strings.Join(items, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(items[:n], "; "), len(items)-n)
}
