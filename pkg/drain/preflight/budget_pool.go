package preflight

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
)

// PoolBudget is one PodDisruptionBudget with pods the pool evicts, counted
// across every node of the pool: the eviction API keeps each budget
// whichever node a pod is on, so its pods on different nodes share its
// disruptions.
type PoolBudget struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Nodes are the pool nodes holding its evicted pods, in drain order.
	Nodes []string `json:"nodes"`
	// PodsInPool counts its pods the pool evicts.
	PodsInPool int `json:"podsInPool"`
	// HealthyInPool counts those of them that are Ready: the ones that use
	// up disruptionsAllowed.
	HealthyInPool int32 `json:"healthyInPool"`
	// DisruptionsAllowed is its status.disruptionsAllowed as read.
	DisruptionsAllowed int32 `json:"disruptionsAllowed"`
	// PerWave is how many of its Ready pods may go at once: disruptionsAllowed,
	// or when that is 0 the pace its spec allows once healthy again.
	PerWave int32 `json:"perWave"`
	// Waves is how many rounds of evictions it forces across the whole pool
	// (ceil(HealthyInPool / PerWave), one more when it allows none now);
	// 1 means no wait, 0 that a node's preflight found it blocked.
	Waves int `json:"waves"`
	// WaveSeconds is how long one round takes in seconds: from an eviction
	// until the replacement is Ready and the budget allows the next
	// (scheduling and the disruption controller, about 2 s, plus the
	// longest readiness probe initialDelaySeconds of its pods).
	WaveSeconds float64 `json:"waveSeconds"`
	// Blocked is true when a node's preflight found that some of its pods
	// cannot be evicted (its plan there is "blocked").
	Blocked bool `json:"blocked"`
}

// key returns "namespace/name".
func (b PoolBudget) key() string { return b.Namespace + "/" + b.Name }

// poolBudgets sums each node's Budgets per PDB, in the order of first
// appearance (drain order, then the node's own order). pods are the
// evicted pods of the pool, for the readiness delay of each budget.
func poolBudgets(nodes []*Report, pods []poolPod) []PoolBudget {
	idx := map[string]int{}
	var out []PoolBudget
	// status is each budget's as its first node read it: its pace.
	var status []policyv1.PodDisruptionBudgetStatus
	ready := map[string][]*corev1.Pod{}
	byKey := map[string]*corev1.Pod{}
	for _, p := range pods {
		byKey[p.node+"/"+podKey(p.pod)] = p.pod
	}
	for _, nr := range nodes {
		for _, b := range nr.Budgets {
			key := b.Namespace + "/" + b.Name
			i, ok := idx[key]
			if !ok {
				i = len(out)
				idx[key] = i
				out = append(out, PoolBudget{Namespace: b.Namespace, Name: b.Name, Nodes: []string{},
					DisruptionsAllowed: b.DisruptionsAllowed, Waves: 1})
				status = append(status, policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: b.DisruptionsAllowed,
					ExpectedPods: b.ExpectedPods, DesiredHealthy: b.DesiredHealthy})
				_, out[i].PerWave = budgetWaves(0, status[i])
			}
			pb := &out[i]
			pb.Nodes = append(pb.Nodes, nr.Node)
			pb.PodsInPool += len(b.PodsOnNode)
			pb.HealthyInPool += b.HealthyOnNode
			pb.Blocked = pb.Blocked || b.Plan == "blocked"
			for _, name := range b.PodsOnNode {
				if p := byKey[nr.Node+"/"+b.Namespace+"/"+name]; p != nil {
					ready[key] = append(ready[key], p)
				}
			}
			if pb.HealthyInPool > 0 && !pb.Blocked {
				pb.Waves, _ = budgetWaves(pb.HealthyInPool, status[i])
			}
		}
	}
	for i := range out {
		if out[i].Blocked {
			out[i].Waves = 0
		}
		out[i].WaveSeconds = readyDelay(ready[out[i].key()]).Seconds()
	}
	return out
}

// drainTogether groups the nodes of the pool, in drain order, so that the
// nodes of a group can drain at the same time without waiting on each
// other's budgets: within a group, every PDB with Ready pods on more than
// one of its nodes lets all of those pods go in one wave. A node goes into
// the first group it fits; a node whose own pods need several waves of a
// budget shares no group with another node holding pods of that budget.
func drainTogether(nodes []*Report, budgets []PoolBudget) [][]string {
	perWave := map[string]int32{}
	for _, b := range budgets {
		perWave[b.key()] = b.PerWave
	}
	type group struct {
		nodes   []string
		healthy map[string]int32 // per PDB, its Ready pods on the group's nodes
	}
	var groups []*group
	for _, nr := range nodes {
		mine := map[string]int32{}
		for _, b := range nr.Budgets {
			if b.HealthyOnNode > 0 {
				mine[b.Namespace+"/"+b.Name] = b.HealthyOnNode
			}
		}
		i := slices.IndexFunc(groups, func(g *group) bool { return fitsGroup(mine, g.healthy, perWave) })
		if i < 0 {
			i = len(groups)
			groups = append(groups, &group{healthy: map[string]int32{}})
		}
		g := groups[i]
		g.nodes = append(g.nodes, nr.Node)
		for k, v := range mine {
			g.healthy[k] += v
		}
	}
	out := make([][]string, len(groups))
	for i, g := range groups {
		out[i] = g.nodes
	}
	return out
}

// fitsGroup reports whether a node whose Ready pods per PDB are mine can
// join a group holding healthy: every PDB they share lets both sets go in
// one wave.
func fitsGroup(mine, healthy map[string]int32, perWave map[string]int32) bool {
	for k, v := range mine {
		if h, shared := healthy[k]; shared && h+v > perWave[k] {
			return false
		}
	}
	return true
}

// budgetOfPod maps "node/namespace/name" of each evicted Ready pod counted
// by a budget to the budget's "namespace/name".
func budgetOfPod(nodes []*Report) map[string]string {
	out := map[string]string{}
	for _, nr := range nodes {
		for _, b := range nr.Budgets {
			for _, name := range b.PodsOnNode {
				out[nr.Node+"/"+b.Namespace+"/"+name] = b.Namespace + "/" + b.Name
			}
		}
	}
	return out
}
