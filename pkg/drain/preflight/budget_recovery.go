package preflight

import (
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-graceful/kubectl-graceful/internal/podspec"
)

// budgetHold is why a PodDisruptionBudget that allows no disruption now
// will not free one by itself.
type budgetHold struct {
	// deficit is how many more Ready pods the budget needs before it allows
	// one disruption (desiredHealthy + 1 - currentHealthy).
	deficit int32
	// recovering counts the pods that may still turn Ready without anyone
	// acting: Pending pods, pods the controllers have yet to create
	// (expectedPods minus the pods that exist), and the replacements of the
	// unready pods the drain itself evicts from this node.
	recovering int32
	// holders are the Running, not Ready pods of the budget on other nodes:
	// they count against it and the drain does not remove them.
	holders []*corev1.Pod
}

// stuck reports whether the budget cannot recover without someone acting
// on its unready pods: fewer pods may turn Ready than it lacks, and some of
// what it lacks is unready pods the drain leaves alone.
func (h budgetHold) stuck() bool {
	return h.deficit > 0 && h.recovering < h.deficit && len(h.holders) > 0
}

// holdOf computes the budgetHold of b's PDB when it allows no disruption
// now. The disruption controller counts a pod as healthy only when it is
// Ready and not terminating (pkg/controller/disruption: countHealthyPods),
// and disruptionsAllowed = currentHealthy - desiredHealthy; an unready pod
// keeps counting in expectedPods through its controller's scale, so the
// budget moves only when such a pod turns Ready or its workload changes.
// unreadyLeave reports whether the drain evicts b's unready pods on the
// node (the API lets it: unhealthyEvictable).
func holdOf(b *budgetBucket, in Input, unreadyLeave bool) budgetHold {
	st := b.pdb.Status
	h := budgetHold{deficit: st.DesiredHealthy + 1 - st.CurrentHealthy}
	if st.DisruptionsAllowed > 0 || h.deficit <= 0 {
		return budgetHold{}
	}
	sel, ok := budgetSelector(b.pdb)
	if !ok {
		return budgetHold{}
	}
	var lives int32
	for i := range in.NamespacePods {
		p := &in.NamespacePods[i]
		if p.Namespace != b.pdb.Namespace || !sel.Matches(labels.Set(p.Labels)) || !live(p) {
			continue
		}
		switch p.Status.Phase {
		case corev1.PodPending:
			h.recovering++
		case corev1.PodRunning:
			if !isReady(p) && p.Spec.NodeName != in.Node.Name {
				h.holders = append(h.holders, p)
			}
		}
		lives++
	}
	h.recovering += max(st.ExpectedPods-lives, 0)
	if unreadyLeave {
		h.recovering += int32(len(b.unhealthy))
	}
	sort.Slice(h.holders, func(i, j int) bool { return h.holders[i].Name < h.holders[j].Name })
	return h
}

// holdBlocker is the blocker of a budget that will not recover: which
// unready pods hold it, on which node, for how long, and what the
// unhealthyPodEvictionPolicy means for them.
func holdBlocker(pdb *policyv1.PodDisruptionBudget, h budgetHold, healthyOnNode int32, now time.Time) Issue {
	where := make([]string, len(h.holders))
	for i, p := range h.holders {
		where[i] = fmt.Sprintf("%s on node %s (Running, not Ready%s)%s", podKey(p), p.Spec.NodeName, unreadyFor(p, now), whyUnready(p).brief())
	}
	policy := "under unhealthyPodEvictionPolicy IfHealthyBudget an unready pod counts against the budget " +
		"and may itself be evicted only while the budget is met"
	if unhealthyPolicy(pdb) == policyv1.AlwaysAllow {
		policy = "under unhealthyPodEvictionPolicy AlwaysAllow the unready pods could be evicted first, " +
			"but they are not on this node, so the drain does not remove them, and their replacements too must turn Ready"
	}
	return Issue{Kind: BlockerPDBHeldByUnready, PDB: pdbName(pdb), Message: fmt.Sprintf(
		"PDB %s allows no disruption (currentHealthy %d, desiredHealthy %d) and will not recover by itself: "+
			"it is held by unready pod(s) %s; %s. None of its %d Ready pod(s) on this node can be evicted "+
			"until those pods turn Ready or someone fixes, removes or scales down their workload: "+
			"waiting helps only if they turn Ready, and the drain cannot tell when",
		pdbName(pdb), pdb.Status.CurrentHealthy, pdb.Status.DesiredHealthy, strings.Join(where, ", "), policy, healthyOnNode)}
}

// unreadyFor returns " for DURATION" since the pod's Ready condition last
// changed, or "" when that is unknown.
func unreadyFor(p *corev1.Pod, now time.Time) string {
	if c := podspec.Condition(p, corev1.PodReady); c != nil && !c.LastTransitionTime.IsZero() {
		return " for " + now.Sub(c.LastTransitionTime.Time).Round(time.Second).String()
	}
	return ""
}
