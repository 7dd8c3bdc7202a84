package preflight

// IssueKind names one blocker or warning of a preflight (Issue.Kind): a
// stable kebab-case value, the "kind" of `drain --dry-run -o json`, for
// programs to act on; Issue.Message says it for a person.
type IssueKind string

// Blockers that make the drain refuse to start (Issue.Refuses): nothing is
// changed until a flag or the object changes.
const (
	// BlockerNeedsForce: a pod declares no controller; kubectl's filter
	// (k8s.io/kubectl/pkg/drain, unreplicatedFilter) needs --force.
	BlockerNeedsForce IssueKind = "needs-force"
	// BlockerNeedsDeleteEmptyDirData: a pod uses emptyDir; kubectl's
	// filter (localStorageFilter) needs --delete-emptydir-data.
	BlockerNeedsDeleteEmptyDirData IssueKind = "needs-delete-emptydir-data"
	// BlockerNeedsIgnoreDaemonSets: a DaemonSet's pod; kubectl's filter
	// (daemonSetFilter) needs --ignore-daemonsets.
	BlockerNeedsIgnoreDaemonSets IssueKind = "needs-ignore-daemonsets"
	// BlockerDoNotDisrupt: an operator annotated the pod not to be
	// disrupted; --evict-do-not-disrupt overrides.
	BlockerDoNotDisrupt IssueKind = "do-not-disrupt"
	// BlockerForbidden: the caller may not do something the drain does
	// (a SelfSubjectAccessReview said no).
	BlockerForbidden IssueKind = "forbidden"
	// BlockerPoolNoCapacity: the pods of a pool do not fit on the
	// schedulable nodes outside it (requests against allocatable, node
	// selector and affinity, taints).
	BlockerPoolNoCapacity IssueKind = "pool-no-capacity"
)

// Blockers that make the drain wait, until --timeout or Ctrl-C.
const (
	// BlockerPDBAllowsNone: a PodDisruptionBudget allows no disruption
	// by its spec.
	BlockerPDBAllowsNone IssueKind = "pdb-allows-none"
	// BlockerPDBNeverAllows: a budget's own status says it cannot allow a
	// disruption by itself, whatever the drain waits for.
	BlockerPDBNeverAllows IssueKind = "pdb-never-allows"
	// BlockerPDBNoRoom: a budget's pods can go only once replacements are
	// Ready elsewhere, and no other node can take them.
	BlockerPDBNoRoom IssueKind = "pdb-no-room-elsewhere"
	// BlockerMultiplePDBs: a pod under more than one budget; the Eviction
	// API answers 500 whatever they allow.
	BlockerMultiplePDBs IssueKind = "multiple-pdbs"
	// BlockerUnreadyPod: an unready pod under a budget whose
	// unhealthyPodEvictionPolicy is IfHealthyBudget and that is not
	// healthy: its eviction is refused until it turns Ready.
	BlockerUnreadyPod IssueKind = "unready-pod-if-healthy-budget"
	// BlockerPDBHeldByUnready: a budget held at zero by unready pods
	// that will not recover by themselves.
	BlockerPDBHeldByUnready IssueKind = "pdb-held-by-unready-pods"
	// BlockerToleratesCordon: a pod whose replacement may land back on
	// the cordoned node (it tolerates node.kubernetes.io/unschedulable).
	BlockerToleratesCordon IssueKind = "tolerates-cordon"
	// BlockerTerminatingStuck: a pod past its grace deadline is still
	// there.
	BlockerTerminatingStuck IssueKind = "terminating-pod-stuck"
	// BlockerServerRefused: the API server refused a dry-run eviction
	// (--dry-run=server).
	BlockerServerRefused IssueKind = "server-dry-run-refused"
)

// Warnings: the drain can finish, but something will hurt.
const (
	// WarningSingleReplica: a workload of one replica serves nothing until
	// its replacement is Ready elsewhere.
	WarningSingleReplica IssueKind = "single-replica"
	// WarningAllReplicas: all replicas of a workload without a budget are
	// on the node: they all go at once.
	WarningAllReplicas IssueKind = "all-replicas-on-node"
	// WarningPDBSequential: a budget makes its pods on the node go in
	// waves, each once the replacements are Ready elsewhere.
	WarningPDBSequential IssueKind = "pdb-sequential"
	// WarningPDBNotObserved: the disruption controller has not processed
	// a budget yet; evictions answer 429 until it has.
	WarningPDBNotObserved IssueKind = "pdb-not-observed"
	// WarningDisableEviction: --disable-eviction deletes pods without
	// asking their budgets.
	WarningDisableEviction IssueKind = "disable-eviction"
	// WarningTerminationAudit: the audit finds that a pod to evict loses
	// requests when it is (pkg/inspect.PodFindings).
	WarningTerminationAudit IssueKind = "termination-audit"
	// WarningAccessUnknown: a permission could not be checked.
	WarningAccessUnknown IssueKind = "access-unknown"
	// WarningBudgetWatchForbidden: the caller may list but not watch the
	// PodDisruptionBudgets of a namespace where one covers a pod to
	// evict, so the drain's informer sees their
	// status.disruptionsAllowed only at each relist (after a backoff);
	// it still drains, leaning on the Eviction API's 429 answers.
	WarningBudgetWatchForbidden IssueKind = "budget-watch-forbidden"
	// WarningTerminatingFinalizer: a pod within its grace period will
	// wait on finalizers after it.
	WarningTerminatingFinalizer IssueKind = "terminating-pod-finalizer"
	// WarningPoolNotReplaced: evicted pods no controller recreates; they
	// are deleted, not moved.
	WarningPoolNotReplaced IssueKind = "pool-pod-not-replaced"
	// WarningPoolCapacityUnknown: the pods outside the pool could not be
	// listed, so their requests are not counted.
	WarningPoolCapacityUnknown IssueKind = "pool-capacity-unknown"
	// WarningLBNotExcluded: LoadBalancer Services exist and the drain will
	// not take the node out of their load balancers (--exclude-from-lb
	// absent).
	WarningLBNotExcluded IssueKind = "lb-not-excluded"
)
