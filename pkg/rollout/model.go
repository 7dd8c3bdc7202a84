package rollout

import (
	"slices"
	"strings"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/probe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// Workload names one workload by its Kubernetes kind (Deployment,
// StatefulSet or DaemonSet), namespace and name.
type Workload struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// String renders the reference as kubectl does: "deployment/web".
func (w Workload) String() string { return strings.ToLower(w.Kind) + "/" + w.Name }

// Budget is a PodDisruptionBudget whose selector matches the workload's pod
// template, with the number of healthy pods it wants (status.desiredHealthy,
// computed by the disruption controller) when the watch started.
type Budget struct {
	Name           string `json:"name"`
	DesiredHealthy int32  `json:"desiredHealthy"`
}

// CapacitySample is a Service's endpoint count at one moment: the endpoints
// of its EndpointSlices (each pod counted once, whichever slice holds it)
// that are ready, those still serving while terminating, and the
// workload's desired replicas at that moment.
type CapacitySample struct {
	Recv               time.Time
	Ready              int32
	ServingTerminating int32
	Desired            int32
	// Initial marks the state found when the watch started.
	Initial bool
}

// CapacityTrack is one Service's samples, one per change, in receive order.
type CapacityTrack struct {
	Service string
	Samples []CapacitySample
}

// StatusChange is a rollout-level line: the workload's rollout status as
// `kubectl rollout status` words it, or a pod created or found.
type StatusChange struct {
	Recv time.Time
	// Pod is set when the change is about one pod.
	Pod     string
	Message string
}

// Rollout is everything seen of a workload while `watch` followed it: the
// workload-level facts, and one Timeline per pod (built by the same
// Recorder as `watch pod`).
type Rollout struct {
	Workload Workload
	// Selector is the workload's label selector, as sent to the API.
	Selector string
	// Services select the workload's pod template; ServicesUnseen is true
	// when they could not be listed (the capacity track is then missing).
	Services       []string
	ServicesUnseen bool
	// EndpointsUnseen is true when the EndpointSlices could not be watched:
	// no pod's race can be judged.
	EndpointsUnseen bool
	Budgets         []Budget
	// T0 is the local monotonic time the rollout started: when this command
	// sent the restart or scale (T0Source says which), else when the first
	// change was seen (a new generation of the workload, a pod deletion).
	T0       time.Time
	T0Source timeline.T0Source
	// Start and End are when the watch started and stopped.
	Start, End time.Time
	// Pods are every pod of the workload seen, in the order first seen;
	// those with a T0 terminated while watched (or were terminating at
	// start).
	Pods     []*timeline.Timeline
	Capacity []*CapacityTrack
	Status   []StatusChange
	// Complete is true when the workload's status said the rollout was done
	// and no pod of it was terminating; CompleteAt is when.
	Complete   bool
	CompleteAt time.Time
	// Stalled is the workload's own report that it stopped progressing
	// (a Deployment's ProgressDeadlineExceeded), empty otherwise.
	Stalled string
	// Ended says why the watch stopped: timeline.EndedComplete,
	// EndedStalled, EndedTimeout or EndedInterrupted.
	Ended timeline.Ended
	// LastStatus is the last rollout status message seen.
	LastStatus string
	// NeverReady are pods of the workload, alive at the end, whose Ready
	// condition was never True while watched.
	NeverReady []string
	Gaps       []timeline.Gap
	Notes      []string
	// ProbeURL is the URL the probe sent requests to, "" without a probe;
	// Requests are its results in the order they were recorded.
	ProbeURL string
	Requests []probe.Result
}

// Ms returns t in milliseconds since the rollout's T0, false when T0 is not
// known yet.
func (r *Rollout) Ms(t time.Time) (int64, bool) { return (&timeline.Timeline{T0: r.T0}).Ms(t) }

// Terminated returns the pods that terminated while watched (or were
// terminating at start), in the order their deletion was seen.
func (r *Rollout) Terminated() []*timeline.Timeline {
	out := slices.DeleteFunc(slices.Clone(r.Pods), func(tl *timeline.Timeline) bool { return tl.T0.IsZero() })
	slices.SortStableFunc(out, func(a, b *timeline.Timeline) int { return a.T0.Compare(b.T0) })
	return out
}

// t0Texts are the T0 sources in the words of the findings.
var t0Texts = map[timeline.T0Source]string{
	timeline.T0RestartSent: "restart sent", timeline.T0ScaleSent: "scale sent", timeline.T0WatchStart: "watch start (a pod already terminating)",
	timeline.T0PodDeletionSeen: "first pod deletion seen", timeline.T0GenerationSeen: "new generation of the workload seen",
	timeline.T0NodesPodDeletionSeen: "first pod deletion seen on the nodes",
}
