package preflight

import (
	"slices"
	"time"
)

// Issue is one blocker or warning of a preflight.
type Issue struct {
	// Kind is one of the Blocker* or Warning* values.
	Kind IssueKind `json:"kind"`
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

// PodEntry is one pod the preflight looked at.
type PodEntry struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Phase     string `json:"phase"`
	Ready     bool   `json:"ready"`
	// GracePeriodSeconds is the grace period the drain gives it, in seconds.
	GracePeriodSeconds int64 `json:"gracePeriodSeconds"`
	// Note says why a skipped or refused pod is not evicted.
	Note string `json:"note,omitempty"`
}

// OwnerGroup is the pods of one workload on the node.
type OwnerGroup struct {
	Namespace string     `json:"namespace"`
	Owner     OwnerRef   `json:"owner"`
	Pods      []PodEntry `json:"pods"`
	// Replicas is how many live pods the workload has in the cluster
	// (counted from the namespace's pods), 0 for a bare pod.
	Replicas int `json:"replicas"`
}

// BudgetEntry is one PodDisruptionBudget that covers pods the drain evicts, as
// its status stands now.
type BudgetEntry struct {
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
	Evict []OwnerGroup `json:"evict"`
	// Skipped are pods left in place (DaemonSet with --ignore-daemonsets,
	// mirror pods) and pods the drain refuses to remove, with Note saying why.
	Skipped []PodEntry `json:"skipped"`
	// Terminating are pods already being deleted: not evicted again, waited for.
	Terminating []TerminatingPod `json:"terminating"`
	Budgets     []BudgetEntry    `json:"budgets"`
	Blockers    []Issue          `json:"blockers"`
	// Access are the permission checks of the drain's requests.
	Access []AccessCheck `json:"access"`
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
	// timeout is --timeout, which a blocked verdict says the drain waits for.
	timeout time.Duration
}

// Refused reports whether the drain will not start at all.
func (r *Report) Refused() bool {
	return refusing(r.Blockers)
}

// refusing reports whether one of blockers stops the drain before it
// starts.
func refusing(blockers []Issue) bool {
	return slices.ContainsFunc(blockers, func(b Issue) bool { return b.Refuses })
}

// PodCount returns how many pods the drain evicts.
func (r *Report) PodCount() int {
	n := 0
	for _, g := range r.Evict {
		n += len(g.Pods)
	}
	return n
}
