package timeline

// Ended says why a watch stopped (the "ended" of `watch TYPE/NAME -o json`
// and `watch node -o json`): a stable kebab-case value.
type Ended string

// Why a watch stopped.
const (
	// EndedComplete: the rollout completed and the watch settled (the
	// rollout watch; a workload of the node watch whose pods all went).
	EndedComplete Ended = "complete"
	// EndedStalled: the workload reported it stopped progressing (a
	// Deployment's ProgressDeadlineExceeded).
	EndedStalled Ended = "stalled"
	// EndedEmpty: no evictable pod is left on the watched nodes.
	EndedEmpty Ended = "empty"
	// EndedNodesDeleted: every watched node was deleted.
	EndedNodesDeleted Ended = "nodes-deleted"
	// EndedStopped: the drain the node watch followed stopped first.
	EndedStopped Ended = "stopped"
	// EndedTimeout: --timeout ended the watch first.
	EndedTimeout Ended = "timeout"
	// EndedInterrupted: Ctrl-C or SIGTERM ended the watch first.
	EndedInterrupted Ended = "interrupted"
)
