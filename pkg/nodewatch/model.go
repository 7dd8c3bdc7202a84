package nodewatch

import (
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// Watch is everything seen while the nodes were followed.
type Watch struct {
	// Nodes are the nodes followed, in the order given or listed.
	Nodes []string
	// T0 is the local monotonic time of the first pod deletion seen on the
	// nodes (zero when none was): every time is in ms since it.
	T0 time.Time
	// Start and End are when the watch started and stopped.
	Start, End time.Time
	// Workloads are the workloads with pods on the nodes, each a rollout
	// record on the watch's clock: its pods' timelines, the capacity of
	// the Services that select them, the budgets that cover them.
	Workloads []*rollout.Rollout
	// Remaining are the evictable pods still on the nodes at the end
	// (DaemonSet and mirror pods are not followed), as namespace/name.
	Remaining []string
	// Terminating are those of Remaining whose deletion was seen: still
	// terminating at the end.
	Terminating []string
	// NodesDeleted are the followed nodes deleted while watched.
	NodesDeleted []string
	// Ended says why the watch stopped: EndedEmpty, EndedNodesDeleted,
	// EndedTimeout, EndedInterrupted or EndedStopped (the drain it
	// followed stopped first: ErrStopped).
	Ended timeline.Ended
	// EndpointsUnseen, EventsUnseen and ServicesUnseen are set when those
	// could not be watched or listed (RBAC): the verdict says what it lacks.
	EndpointsUnseen, EventsUnseen, ServicesUnseen bool
	// BudgetsUnseen is set when the PodDisruptionBudgets could not be
	// watched: no workload's time below its budget can be told.
	BudgetsUnseen bool
	Gaps          []timeline.Gap
	Notes         []string
	// Drainers are who the marks on the nodes said drains them, each time
	// they changed (also a note each, as seen).
	Drainers []Drainer
	// NodeEvents are the Events about the nodes and the changes of their
	// conditions seen while watched, in the order seen.
	NodeEvents []NodeEvent
	// Silences are the times a followed node's kubelet did not report
	// (its Ready condition Unknown), as seen.
	Silences []Silence

	pods map[*timeline.Timeline]podPlace
	// unlisted are the nodes whose pods were never listed (the watch ended
	// first): what was on them is not known.
	unlisted []string
	// budgets are the PodDisruptionBudgets that cover each workload,
	// budgetGaps the gaps of their watch.
	budgets    map[*rollout.Rollout][]*budgetTrack
	budgetGaps []timeline.Gap
}

// podPlace is where a followed pod runs and what owns it.
type podPlace struct {
	node     string
	workload *rollout.Rollout
}

// place returns the node a pod's timeline was recorded on and its
// workload's record (nil for a pod not followed).
func (w *Watch) place(tl *timeline.Timeline) (node string, r *rollout.Rollout) {
	p := w.pods[tl]
	return p.node, p.workload
}
