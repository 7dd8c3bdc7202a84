package harness

import (
	"fmt"
	"time"
)

// poolBudget is one PodDisruptionBudget's share of a pool drain: how many
// of its pods sit on the pool's nodes, and how many disruptions it allows
// at once when all its pods are healthy (status.disruptionsAllowed,
// currentHealthy - desiredHealthy as the disruption controller computes it).
type poolBudget struct {
	Name           string
	PodsInPool     int
	AllowedPerWave int
}

// poolIdeal is the fastest a pool drain can go, and why.
type poolIdeal struct {
	// Waves is the most waves any budget forces: ceil(PodsInPool /
	// AllowedPerWave).
	Waves int
	// Budget names the budget that forces them.
	Budget string
	// Rounds is ceil(nodes / concurrent nodes): how many times at least a
	// node must be emptied (its pods gone) before the next can start.
	Rounds int
	// Took is the ideal wall time: the larger of termination + (Waves-1) x
	// recovery and Rounds x termination.
	Took time.Duration
}

// idealPool computes the ideal wall time of draining a pool of nodes nodes,
// concurrent at a time, under budgets, given this cluster's measured
// termination (from an eviction until the evicted pods are gone) and
// recovery (from an eviction until the budget allows the next one: the
// replacements Ready) times. It is the pool form of the single-node ideal
// (termination + (waves-1) x recovery) and bounds any tool from below: a
// budget's next wave cannot start before the previous one's replacements
// are Ready, and a node beyond the concurrent ones cannot start before one
// is empty. It ignores which node each pod sits on (a budget's pods on
// nodes of a later round wait for that round), so it may be lower than what
// any order achieves. It stands in for pkg/drain's own model of a pool
// until the benchmark can call it: IdealPoolSecondsWith(report,
// concurrent, PoolTimes{ExitSeconds: termination, WaveSeconds: recovery}),
// with the report of the pool preflight gathered on the settled pool,
// which also follows each pod's node.
//
// Errors: a budget with pods in the pool that allows no disruption (the
// drain would block), or no nodes or concurrency below one.
func idealPool(budgets []poolBudget, nodes, concurrent int, termination, recovery time.Duration) (poolIdeal, error) {
	if nodes < 1 || concurrent < 1 {
		return poolIdeal{}, fmt.Errorf("ideal pool drain: %d nodes, %d at a time", nodes, concurrent)
	}
	id := poolIdeal{Rounds: (nodes + concurrent - 1) / concurrent}
	for _, b := range budgets {
		if b.PodsInPool == 0 {
			continue
		}
		if b.AllowedPerWave < 1 {
			return poolIdeal{}, fmt.Errorf("ideal pool drain: PDB %s allows no disruption for its %d pods in the pool", b.Name, b.PodsInPool)
		}
		if w := (b.PodsInPool + b.AllowedPerWave - 1) / b.AllowedPerWave; w > id.Waves {
			id.Waves, id.Budget = w, b.Name
		}
	}
	id.Took = time.Duration(id.Rounds) * termination
	if id.Waves > 0 {
		id.Took = max(id.Took, termination+time.Duration(id.Waves-1)*recovery)
	}
	return id, nil
}
