package preflight

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
)

// budgetBucket is one PDB and the evicted pods of it on the node.
type budgetBucket struct {
	pdb       *policyv1.PodDisruptionBudget
	healthy   []*corev1.Pod
	unhealthy []*corev1.Pod
	// shared is true when one of its pods is under another PDB too: the
	// eviction API refuses that pod (500), whatever the budget allows.
	shared bool
}

// budgets fills r.Budgets and the PDB blockers and warnings for the pods the
// drain evicts, and returns the longest wait the PDBs force (evictions run
// concurrently, so the waits of different PDBs overlap).
func budgets(r *Report, evict []*corev1.Pod, in Input) time.Duration {
	buckets := map[string]*budgetBucket{}
	for _, pod := range evict {
		if bypassesBudget(pod) {
			continue
		}
		pdbs := matchingPDBs(pod, in.PDBs)
		if len(pdbs) > 1 && !in.Flags.DisableEviction {
			names := make([]string, len(pdbs))
			for i, p := range pdbs {
				names[i] = p.Name
			}
			r.Blockers = append(r.Blockers, Issue{Kind: BlockerMultiplePDBs, Pod: podKey(pod), Message: fmt.Sprintf(
				"pod %s is covered by %d PodDisruptionBudgets (%v): the eviction API refuses it with 500 "+
					"(more than one PodDisruptionBudget) whatever they allow: waiting will not help; make their selectors disjoint", podKey(pod), len(pdbs), names)})
		}
		for _, pdb := range pdbs {
			b := buckets[pdbName(pdb)]
			if b == nil {
				b = &budgetBucket{pdb: pdb}
				buckets[pdbName(pdb)] = b
			}
			b.shared = b.shared || len(pdbs) > 1
			if isReady(pod) {
				b.healthy = append(b.healthy, pod)
			} else {
				b.unhealthy = append(b.unhealthy, pod)
			}
		}
	}
	var maxWait time.Duration
	for _, k := range slices.Sorted(maps.Keys(buckets)) {
		b := buckets[k]
		blockers := len(r.Blockers)
		budget, wait := planBudget(r, b, in)
		if in.Flags.DeleteAfter > 0 {
			wait = max(wait, deleteAfterPlan(r, blockers, &budget, in.Flags.DeleteAfter))
		}
		r.Budgets = append(r.Budgets, budget)
		maxWait = max(maxWait, wait)
	}
	return maxWait
}

// planBudget decides how the pods of one PDB leave the node, adds its
// blockers and warnings to r, and returns the wait it forces.
func planBudget(r *Report, b *budgetBucket, in Input) (BudgetEntry, time.Duration) {
	pdb, st := b.pdb, b.pdb.Status
	out := BudgetEntry{Namespace: pdb.Namespace, Name: pdb.Name,
		HealthyOnNode: int32(len(b.healthy)), DisruptionsAllowed: st.DisruptionsAllowed,
		CurrentHealthy: st.CurrentHealthy, DesiredHealthy: st.DesiredHealthy, ExpectedPods: st.ExpectedPods,
		UnhealthyPodEvictionPolicy: string(unhealthyPolicy(pdb)), Plan: "all at once", Waves: 1}
	for _, p := range append(append([]*corev1.Pod{}, b.healthy...), b.unhealthy...) {
		out.PodsOnNode = append(out.PodsOnNode, p.Name)
	}
	sort.Strings(out.PodsOnNode)
	if in.Flags.DisableEviction {
		out.Plan = "bypassed (--disable-eviction)"
		return out, 0
	}
	// blocked returns the plan blocked, with the blocker i added to r.
	blocked := func(i Issue) (BudgetEntry, time.Duration) {
		out.Plan = "blocked"
		r.Blockers = append(r.Blockers, i)
		return out, 0
	}
	if pdb.Status.ObservedGeneration < pdb.Generation && !syncFailed(pdb) {
		r.Warnings = append(r.Warnings, Issue{Kind: WarningPDBNotObserved, PDB: pdbName(pdb), Message: fmt.Sprintf(
			"PDB %s is still being processed by the disruption controller: evictions answer 429 until it catches up", pdbName(pdb))})
	}
	if unreadyBlockers(r, b) || b.shared {
		// The API refuses some of its pods whatever the plan of the rest.
		out.Plan = "blocked"
	}
	h := int32(len(b.healthy))
	if h == 0 {
		return out, 0
	}
	if why := zeroBySpec(pdb, in.NamespacePods); why != "" {
		return blocked(Issue{Kind: BlockerPDBAllowsNone, PDB: pdbName(pdb), Message: fmt.Sprintf(
			"PDB %s allows no disruption by its spec (%s): its %d Ready pod(s) on this node can never be evicted; "+
				"waiting will not help: change the PDB or scale the workload", pdbName(pdb), why, h)})
	}
	if why := neverAllows(b, in); why != "" {
		return blocked(Issue{Kind: BlockerPDBNeverAllows, PDB: pdbName(pdb), Message: fmt.Sprintf(
			"PDB %s allows no disruption and cannot by itself: %s. Its %d Ready pod(s) on this node can never be evicted; "+
				"waiting does not help: change the PDB or its workload", pdbName(pdb), why, h)})
	}
	if h <= st.DisruptionsAllowed {
		return out, 0
	}
	if hold := holdOf(b, in, unhealthyEvictable(pdb)); hold.stuck() {
		return blocked(holdBlocker(pdb, hold, h, in.now()))
	}
	if pod := podWithoutRoom(b.healthy, in); pod != nil {
		return blocked(Issue{Kind: BlockerPDBNoRoom, PDB: pdbName(pdb), Pod: podKey(pod), Message: fmt.Sprintf(
			"PDB %s allows %d disruption(s) now (currentHealthy %d, desiredHealthy %d) and %d of its Ready pods are on this node; "+
				"the rest can go only once replacements are Ready elsewhere, and no other node can take %s "+
				"(Ready, schedulable, matching its node selector/affinity and tolerations): waiting helps only if such a node appears "+
				"(uncordon one, add capacity)",
			pdbName(pdb), st.DisruptionsAllowed, st.CurrentHealthy, st.DesiredHealthy, h, podKey(pod))})
	}
	waves, perWave := budgetWaves(h, st)
	out.Waves, out.PerWave = waves, perWave
	out.Plan = "in waves of " + strconv.Itoa(int(perWave))
	if perWave == 1 {
		out.Plan = "one after another"
	}
	r.Warnings = append(r.Warnings, Issue{Kind: WarningPDBSequential, PDB: pdbName(pdb), Message: fmt.Sprintf(
		"PDB %s allows %d disruption(s) now and %d of its Ready pods are on this node: they go %s, "+
			"each wave once the replacements are Ready elsewhere%s", pdbName(pdb), st.DisruptionsAllowed, h, out.Plan, gatesWait(b.healthy))})
	return out, time.Duration(waves-1) * (in.RetryDelay + readyDelay(b.healthy))
}

// budgetWaves returns how many rounds of evictions healthy Ready pods of
// a budget with status st need, and how many go per round: as many as
// disruptionsAllowed now; when it is 0, one round waiting for the budget to
// recover, then the pace the spec allows once every expected pod is
// healthy (expectedPods - desiredHealthy, at least 1).
func budgetWaves(healthy int32, st policyv1.PodDisruptionBudgetStatus) (waves int, perWave int32) {
	perWave = st.DisruptionsAllowed
	if perWave == 0 {
		perWave = max(st.ExpectedPods-st.DesiredHealthy, 1)
		waves = 1
	}
	return waves + int((healthy+perWave-1)/perWave), perWave
}

// unreadyBlockers adds a blocker for each unready pod of b whose eviction
// the API refuses (under IfHealthyBudget while the budget is not met) and
// reports whether it added any.
func unreadyBlockers(r *Report, b *budgetBucket) bool {
	if unhealthyEvictable(b.pdb) || len(b.unhealthy) == 0 {
		return false
	}
	st := b.pdb.Status
	for _, pod := range b.unhealthy {
		why := whyUnready(pod)
		r.Blockers = append(r.Blockers, Issue{Kind: BlockerUnreadyPod, PDB: pdbName(b.pdb), Pod: podKey(pod), Message: fmt.Sprintf(
			"pod %s is not Ready%s and PDB %s (unhealthyPodEvictionPolicy IfHealthyBudget) has currentHealthy %d < desiredHealthy %d: "+
				"its eviction is refused until it turns Ready; %s; unhealthyPodEvictionPolicy: AlwaysAllow lets it go",
			podKey(pod), why.paren(), pdbName(b.pdb), st.CurrentHealthy, st.DesiredHealthy, why.wait)})
	}
	return true
}

// podWithoutRoom returns the first pod whose replacement can run nowhere
// but on the drained node (or that nothing replaces), or nil.
func podWithoutRoom(pods []*corev1.Pod, in Input) *corev1.Pod {
	for _, pod := range pods {
		if !ownerOf(pod, in.RSOwners).replicated() || !roomElsewhere(pod, in.Node.Name, in.Nodes) {
			return pod
		}
	}
	return nil
}

// readyDelay estimates how long a replacement of pods takes to turn Ready
// once created: scheduling and the disruption controller's resync (about
// 2 s) plus the longest readiness probe initialDelaySeconds.
func readyDelay(pods []*corev1.Pod) time.Duration {
	var probe int32
	for _, p := range pods {
		for _, c := range p.Spec.Containers {
			if c.ReadinessProbe != nil {
				probe = max(probe, c.ReadinessProbe.InitialDelaySeconds)
			}
		}
	}
	return 2*time.Second + time.Duration(probe)*time.Second
}

// gatesWait says what else a wave waits for when pods declare readiness
// gates: their replacements are Ready only once whoever owns each gate
// sets its condition True, which the preflight cannot time.
func gatesWait(pods []*corev1.Pod) string {
	gates := gatesOf(pods)
	if len(gates) == 0 {
		return ""
	}
	return " (Ready includes readiness gate(s) " + strings.Join(gates, ", ") +
		", set by whoever owns them, not the kubelet: the waves wait for that too, for a time the preflight cannot tell)"
}
