package drain

// Outcome is how the drain of a node (NodeResult.Outcome) or of a pool
// (PoolResult.Outcome) ended, and what a pool drain did to each node
// (PoolNode.Result). Its JSON values are stable kebab-case words, which the
// text output shows as they are or in words ("partly drained").
type Outcome string

// Outcomes of a node's drain.
const (
	OutcomeDrained     Outcome = "drained"
	OutcomeDryRun      Outcome = "dry-run"
	OutcomeRefused     Outcome = "refused"     // a refusing blocker: nothing was changed
	OutcomeBlocked     Outcome = "blocked"     // pods are left that the API refused to evict
	OutcomeTimedOut    Outcome = "timed-out"   // --timeout ended it
	OutcomeInterrupted Outcome = "interrupted" // Ctrl-C or SIGTERM ended it
	OutcomeError       Outcome = "error"       // the API failed us (RBAC, unreachable)
	// OutcomeUndone: the pods went, but read again at the end the node was
	// uncordoned by another client or holds new evictable pods.
	OutcomeUndone Outcome = "undone"
)

// Outcomes of a pool drain (PoolResult.Outcome) beyond a node's.
const (
	// OutcomeNotDrained: the pool drain ran to its end, and at least one
	// node was not drained (blocked, timed out, undone, gone).
	OutcomeNotDrained Outcome = "not-drained"
	// OutcomeNodeGone: the node was deleted during the pool drain.
	OutcomeNodeGone Outcome = "node-gone"
)

// What a pool drain did to a node (PoolNode.Result) beyond OutcomeDrained
// and OutcomeNodeGone.
const (
	// OutcomePartlyDrained: some of its pods were evicted, some left.
	OutcomePartlyDrained Outcome = "partly-drained"
	// OutcomeUntouched: no eviction of it was accepted nor left
	// unanswered (it may be cordoned).
	OutcomeUntouched Outcome = "untouched"
)
