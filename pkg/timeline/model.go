package timeline

import (
	"cmp"
	"slices"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/probe"
)

// Track is the side of a termination an event belongs to. The values
// appear in -o json as "track"; the text output prints them with spaces
// ("control plane").
type Track string

const (
	// ControlPlane is the API server and its controllers: the delete or
	// eviction, the DisruptionTarget condition, EndpointSlice changes, the
	// object's removal.
	ControlPlane Track = "control-plane"
	// Kubelet is the node: Killing (preStop starts), SIGTERM, probe
	// failures, container exits, the terminal phase.
	Kubelet Track = "kubelet"
	// Ingress is the Ingress controller's own view of the pod's server
	// (--ingress-api): added, fenced (no new requests), removed.
	Ingress Track = "ingress"
)

// Kind names what changed. The values appear in -o json as "kind", in
// kebab-case; those of Events are the Event's reason in kebab-case.
type Kind string

// The kinds of events on a timeline.
const (
	KindDeleteSent       Kind = "delete-sent"           // this command sent the delete or the accepted eviction
	KindEvictionRefused  Kind = "eviction-refused"      // 429 from the Eviction API (PodDisruptionBudget)
	KindDeletionSeen     Kind = "deletion-seen"         // deletionTimestamp appeared on the pod
	KindGraceShortened   Kind = "grace-shortened"       // a later delete shortened deletionGracePeriodSeconds
	KindCondition        Kind = "condition"             // a pod condition changed (DisruptionTarget, Ready, ...)
	KindContainerReady   Kind = "container-ready"       // containerStatuses[].ready flipped
	KindContainerExit    Kind = "container-exit"        // containerStatuses[].state.terminated appeared
	KindPhase            Kind = "phase"                 // status.phase changed
	KindPodGone          Kind = "pod-gone"              // the pod object was deleted
	KindEndpointAdded    Kind = "endpoint-added"        // the pod's endpoint appeared in a slice
	KindEndpointChanged  Kind = "endpoint-changed"      // ready/serving/terminating changed
	KindEndpointRemoved  Kind = "endpoint-removed"      // the pod's endpoint left a slice
	KindServiceEndpoints Kind = "service-endpoints"     // a Service's count of other pods' ready endpoints reached or left zero
	KindKilling          Kind = "killing"               // Event Killing: kubelet starts stopping a container (preStop first)
	KindPreStopFailed    Kind = "failed-pre-stop-hook"  // Event FailedPreStopHook: the preStop hook failed (at once, or cut short at the grace deadline)
	KindUnhealthy        Kind = "unhealthy"             // Event Unhealthy: a probe failed
	KindExceededGrace    Kind = "exceeded-grace-period" // Event ExceededGracePeriod
	KindOtherEvent       Kind = "event"                 // any other Event about the pod
	KindIngressAdded     Kind = "ingress-added"         // the Ingress controller serves the pod's server (again)
	KindIngressFenced    Kind = "ingress-fenced"        // the Ingress controller keeps the server but sends it no new requests
	KindIngressRemoved   Kind = "ingress-removed"       // the pod's server left the Ingress controller's service
)

// kindNames are the words the text output uses for a kind: the Event's
// own reason for the kinds that are Events.
var kindNames = map[Kind]string{
	KindDeleteSent: "DeleteSent", KindEvictionRefused: "EvictionRefused", KindDeletionSeen: "DeletionSeen",
	KindGraceShortened: "GraceShortened", KindCondition: "Condition", KindContainerReady: "ContainerReady",
	KindContainerExit: "ContainerExit", KindPhase: "Phase", KindPodGone: "PodGone", KindEndpointAdded: "EndpointAdded",
	KindEndpointChanged: "EndpointChanged", KindEndpointRemoved: "EndpointRemoved", KindServiceEndpoints: "ServiceEndpoints",
	KindKilling: "Killing", KindPreStopFailed: "FailedPreStopHook", KindUnhealthy: "Unhealthy",
	KindExceededGrace: "ExceededGracePeriod", KindOtherEvent: "Event",
	KindIngressAdded: "IngressAdded", KindIngressFenced: "IngressFenced", KindIngressRemoved: "IngressRemoved",
}

// name is k in the words of the text output.
func (k Kind) name() string {
	return cmp.Or(kindNames[k], string(k))
}

// T0Source says what T0 is. The values appear in -o json as "t0Source".
type T0Source string

// The sources of a pod's T0 (Timeline.T0Source).
const (
	T0DeleteSent       T0Source = "delete-sent"       // this command sent the delete
	T0EvictionAccepted T0Source = "eviction-accepted" // this command's eviction was accepted
	T0DeletionSeen     T0Source = "deletion-seen"     // the first notification showing deletionTimestamp
	T0WatchStart       T0Source = "watch-start"       // the pod was already terminating when the watch started
)

// The sources of a rollout's T0 (pkg/rollout's Rollout.T0Source, which
// T0WatchStart also is) and of a node watch's (pkg/nodewatch).
const (
	T0RestartSent     T0Source = "restart-sent"      // this command patched the restartedAt annotation
	T0ScaleSent       T0Source = "scale-sent"        // this command changed the replicas
	T0PodDeletionSeen T0Source = "pod-deletion-seen" // the first pod deletion seen
	T0GenerationSeen  T0Source = "generation-seen"   // a new generation of the workload seen
	// T0NodesPodDeletionSeen: the first pod deletion seen on the nodes a
	// node watch follows.
	T0NodesPodDeletionSeen T0Source = "nodes-pod-deletion-seen"
)

// EndpointState is the pod's endpoint conditions in one EndpointSlice, with
// the API's defaults applied to unset fields (discovery/v1 EndpointConditions:
// ready and serving default to true, terminating to false).
type EndpointState struct {
	Ready       bool `json:"ready"`
	Serving     bool `json:"serving"`
	Terminating bool `json:"terminating"`
}

// Event is one change seen on a watch.
type Event struct {
	// Recv is the local receive time of the notification; it carries Go's
	// monotonic clock reading, so differences between events are exact to
	// the receiving process.
	Recv time.Time
	// Server is the API's own whole-second time for the change (deletion
	// request, event timestamp, finishedAt, condition transition), zero when
	// the API records none (EndpointSlice changes, the object's removal).
	Server time.Time
	Track  Track
	Kind   Kind
	// Message is what changed, in words; it may contain cluster text and
	// must be escaped before it reaches a terminal.
	Message string
	// Container is set for container-level changes and Events with a
	// fieldPath spec.containers{NAME}.
	Container string
	// ExitCode is set for KindContainerExit.
	ExitCode *int32
	// Service and Slice are set for endpoint changes.
	Service, Slice string
	// Endpoint is the new state for KindEndpointAdded/Changed.
	Endpoint *EndpointState
	// OthersReady is set for KindServiceEndpoints: how many other pods
	// have a ready endpoint in Service's EndpointSlices. At zero kube-proxy
	// sends the Service's traffic to endpoints that are serving and
	// terminating (this pod's too), not to none.
	OthersReady *int
	// Initial marks an event that had already happened when the watch
	// started (a pod found terminating); its Recv is the watch start.
	Initial bool
	// reason is a container exit's reason (Error, OOMKilled, Completed).
	reason string
	// sandboxDown marks the pod's PodReadyToStartContainers turning False:
	// its sandbox (the pause process and network) is gone.
	sandboxDown bool
	// stored is the API server's own time for storing the change, when
	// it is later than Server (an Event written late by its reporter);
	// stalls are measured from the later of the two.
	stored time.Time
}

// Gap is a stretch of time in which one watch was not connected. Changes
// made during it arrive after it, stamped with their late receive time.
type Gap struct {
	// Stream is "pod", "EndpointSlices" or "Events".
	Stream string
	From   time.Time
	// To is zero while the gap is still open.
	To time.Time
	// Relisted is true when the watch expired (410 Gone) or could not
	// resume and was replaced by a fresh List: changes inside the gap are
	// seen only as their net result.
	Relisted bool
	// Reason is the error that opened the gap, or for a stall what
	// arrived late.
	Reason string
	// Stalled marks a stall rather than a cut: the watch stayed connected
	// but delivered a change more than stallThreshold after the server's
	// own time for it; From is that server time on the local clock.
	Stalled bool
}

// PreStop is what the pod spec says a container's preStop hook does.
type PreStop struct {
	// Has is true when the container has any preStop hook.
	Has bool
	// Delay is how long the hook keeps the container from getting SIGTERM
	// (sleep.seconds, or an exec `sleep N`); zero when unknown or none.
	Delay time.Duration
	// Known is false when the hook's duration cannot be read from the spec
	// (an httpGet or an exec script that is not a plain sleep).
	Known bool
}

// Timeline is everything seen of one pod's termination.
type Timeline struct {
	Namespace, Pod, UID string
	// PodIPs are the pod's addresses (status.podIPs) as first read.
	PodIPs []string
	// T0 is the local monotonic time of the delete request: when this
	// command sent it (T0Source "delete-sent" / "eviction-accepted"), or the
	// receive time of the first notification showing deletionTimestamp
	// ("deletion-seen", an upper bound on the request), or the watch's start
	// for a pod already terminating ("watch-start").
	T0       time.Time
	T0Source T0Source
	// Start is when the watch started; End when it stopped.
	Start, End time.Time
	// RequestServer is the server's request time (deletionTimestamp minus
	// deletionGracePeriodSeconds), whole seconds; zero until known.
	RequestServer time.Time
	// GracePeriodSeconds is the pod's deletionGracePeriodSeconds once
	// terminating, before that its spec's terminationGracePeriodSeconds.
	GracePeriodSeconds int64
	// Containers lists spec.containers names in order; PreStop has one entry
	// for each, and for each of NativeSidecars.
	Containers []string
	// NativeSidecars lists the initContainers with restartPolicy Always:
	// the kubelet stops them only after every regular container has exited
	// (KEP-753, kuberuntime killContainersWithSyncResult), so they never
	// decide when the app is told to stop.
	NativeSidecars []string
	PreStop        map[string]PreStop
	// StopSignals are the stop signals the pod names, by container
	// (lifecycle.stopSignal, or the kubelet's report); a container without
	// an entry gets SIGTERM or its image's STOPSIGNAL.
	StopSignals map[string]StopSignal
	// ExecPreStop marks the containers whose preStop is an exec hook.
	ExecPreStop map[string]bool
	// PauseSignals are the containers whose exec preStop ends the pod's
	// pause process (`kill 1` with SIGTERM or SIGINT in a pod that shares
	// its process namespace), with that command: the kernel then kills
	// every container at once (docs/audit.md, prestop-signals-pause).
	PauseSignals map[string]string
	// KillsByName are the containers whose exec preStop runs pkill or
	// killall in a pod that shares its process namespace, with that
	// command: it signals the processes of that name in every container
	// (docs/audit.md, prestop-kills-other-container).
	KillsByName map[string]string
	// Services are the Services whose selector matches the pod.
	Services []string
	// AlreadyTerminating is true when the pod had a deletionTimestamp when
	// the watch started.
	AlreadyTerminating bool
	// EndpointsUnseen / EventsUnseen are true when RBAC (or an error) kept
	// the command from watching EndpointSlices / Events.
	EndpointsUnseen, EventsUnseen bool
	// IngressAPI is the Ingress controller's API the watch read (the
	// ingress.StreamName), "" when none; IngressUnseen is true when it
	// could not be read.
	IngressAPI    string
	IngressUnseen bool
	Events        []Event
	Gaps          []Gap
	// Notes are remarks for the reader (degraded watches, estimates).
	Notes []string
	// ProbeURL is the URL the probe sent requests to, "" without a probe;
	// Requests are its results in the order they were recorded (the
	// "requests" track).
	ProbeURL string
	Requests []probe.Result
}

// Ms returns t in milliseconds since T0 on the monotonic clock, and false
// when T0 is not known yet.
func (tl *Timeline) Ms(t time.Time) (int64, bool) {
	if tl.T0.IsZero() {
		return 0, false
	}
	return t.Sub(tl.T0).Milliseconds(), true
}

// deadline returns the grace deadline in milliseconds since T0 (T0 plus the
// grace period), the moment the kubelet sends SIGKILL.
func (tl *Timeline) deadline() int64 { return tl.GracePeriodSeconds * 1000 }

// HasKind reports whether the timeline holds an event of kind k.
func (tl *Timeline) HasKind(k Kind) bool {
	return slices.ContainsFunc(tl.Events, func(e Event) bool { return e.Kind == k })
}
