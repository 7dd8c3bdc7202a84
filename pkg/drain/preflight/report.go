package preflight

// Blocker kinds: each names one reason a drain cannot finish. The first
// five make the drain refuse to start (Issue.Refuses); the PDB ones make it
// wait, until --timeout or Ctrl-C.
const (
	blockerNeedsForce              = "needs-force"
	blockerNeedsDeleteEmptyDirData = "needs-delete-emptydir-data"
	blockerNeedsIgnoreDaemonSets   = "needs-ignore-daemonsets"
	blockerDoNotDisrupt            = "do-not-disrupt"
	blockerPDBAllowsNone           = "pdb-allows-none"
	blockerPDBNoRoom               = "pdb-no-room-elsewhere"
	blockerMultiplePDBs            = "multiple-pdbs"
	blockerUnreadyPod              = "unready-pod-if-healthy-budget"
	blockerPDBHeldByUnready        = "pdb-held-by-unready-pods"
	// blockerToleratesCordon: a pod whose replacement may land back on
	// the cordoned node (it tolerates node.kubernetes.io/unschedulable).
	blockerToleratesCordon = "tolerates-cordon"
)

// Warning kinds: the drain can finish, but something will hurt.
const (
	warningSingleReplica    = "single-replica"
	warningAllReplicas      = "all-replicas-on-node"
	warningPDBSequential    = "pdb-sequential"
	warningPDBNotObserved   = "pdb-not-observed"
	warningDisableEviction  = "disable-eviction"
	warningTerminationAudit = "termination-audit"
)

// Issue is one blocker or warning of a preflight.
type Issue struct {
	// Kind is one of the blocker* or warning* constants (their values are
	// the JSON "kind", stable for programs).
	Kind string `json:"kind"`
	// Pod is "namespace/name" when the issue is about one pod.
	Pod string `json:"pod,omitempty"`
	// PDB is "namespace/name" when the issue is about a PodDisruptionBudget.
	PDB string `json:"pdb,omitempty"`
	// Message says what happens and what to do, for a person.
	Message string `json:"message"`
	// Refuses is true when the drain will not start at all because of it
	// (a flag is needed, or an operator asked not to disrupt the pod).
	Refuses bool `json:"refuses,omitempty"`
}

// podEntry is one pod the preflight looked at.
type podEntry struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Phase     string `json:"phase"`
	Ready     bool   `json:"ready"`
	// GracePeriodSeconds is the grace period the drain gives it, in seconds.
	GracePeriodSeconds int64 `json:"gracePeriodSeconds"`
	// Note says why a skipped or refused pod is not evicted.
	Note string `json:"note,omitempty"`
}

// ownerGroup is the pods of one workload on the node.
type ownerGroup struct {
	Namespace string     `json:"namespace"`
	Owner     ownerRef   `json:"owner"`
	Pods      []podEntry `json:"pods"`
	// Replicas is how many live pods the workload has in the cluster
	// (counted from the namespace's pods), 0 for a bare pod.
	Replicas int `json:"replicas"`
}

// budgetEntry is one PodDisruptionBudget that covers pods the drain evicts, as
// its status stands now.
type budgetEntry struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// PodsOnNode are the names of its pods the drain would evict.
	PodsOnNode []string `json:"podsOnNode"`
	// HealthyOnNode counts those of them that are Ready (the ones that use
	// up disruptionsAllowed).
	HealthyOnNode              int32  `json:"healthyOnNode"`
	DisruptionsAllowed         int32  `json:"disruptionsAllowed"`
	CurrentHealthy             int32  `json:"currentHealthy"`
	DesiredHealthy             int32  `json:"desiredHealthy"`
	ExpectedPods               int32  `json:"expectedPods"`
	UnhealthyPodEvictionPolicy string `json:"unhealthyPodEvictionPolicy"`
	// Plan says how its pods go, in words for people: "all at once", "one
	// after another", "in waves of N" (N is PerWave), "blocked" or
	// "bypassed (--disable-eviction)".
	Plan string `json:"plan"`
	// Waves is how many rounds of evictions the PDB forces (1 = no wait).
	Waves int `json:"waves"`
	// PerWave is how many of its Ready pods go per round when they go in
	// rounds (Waves > 1): disruptionsAllowed, or when that is 0 the pace
	// its spec allows once healthy again (1: one after another); 0 for the
	// other plans.
	PerWave int32 `json:"perWave"`
}

// Report is the preflight of one node.
type Report struct {
	Node            string `json:"node"`
	AlreadyCordoned bool   `json:"alreadyCordoned"`
	// Evict are the pods the drain evicts, grouped by workload.
	Evict []ownerGroup `json:"evict"`
	// Skipped are pods left in place (DaemonSet with --ignore-daemonsets,
	// mirror pods) and pods the drain refuses to remove, with Note saying why.
	Skipped []podEntry `json:"skipped"`
	// Terminating are pods already being deleted: not evicted again, waited for.
	Terminating []TerminatingPod `json:"terminating"`
	Budgets     []budgetEntry    `json:"budgets"`
	Blockers    []Issue          `json:"blockers"`
	// Access are the permission checks of the drain's requests.
	Access []accessCheck `json:"access"`
	// ServerDryRun are the API server's answers to each eviction sent with
	// dryRun=All (--dry-run=server); empty otherwise.
	ServerDryRun []ServerAnswer `json:"serverDryRun"`
	Warnings     []Issue        `json:"warnings"`
	// Surge are the workloads whose Ready pods are all on the node: what
	// --surge does for each, or why it cannot, and the seconds of zero
	// capacity an eviction without it costs.
	Surge []SurgePlan `json:"surge"`
	// Waves are the eviction waves of --order priority, lowest priority
	// first; absent without it.
	Waves []Wave `json:"waves,omitempty"`
	// WaitCompleted are the pods labelled cluster.x-k8s.io/drain=wait-completed
	// (with --order): not evicted, waited for until they complete.
	WaitCompleted []string `json:"waitCompleted"`
	// EstimatedSeconds is the rough duration of the drain in seconds: the
	// longest grace period plus the waits the PDBs force. Nil (absent in
	// JSON) when a blocker stops the drain or makes it wait until --timeout.
	EstimatedSeconds *int64 `json:"estimatedSeconds,omitempty"`
	// Verdict is the one-line answer: would succeed, or would block on what.
	Verdict string `json:"verdict"`
}

// Refused reports whether the drain will not start at all.
func (r *Report) Refused() bool {
	for _, b := range r.Blockers {
		if b.Refuses {
			return true
		}
	}
	return false
}

// PodCount returns how many pods the drain evicts.
func (r *Report) PodCount() int {
	n := 0
	for _, g := range r.Evict {
		n += len(g.Pods)
	}
	return n
}
