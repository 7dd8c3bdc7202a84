package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// The pool preflight prints each node's preflight, then the capacity, the
// budgets across the pool, the nodes that drain together, the pool's
// blockers and the verdict, escaping every name read from the cluster.
func TestPoolPreflightTables(t *testing.T) {
	evil := "p\x1b[2J\u202e"
	r := &preflight.PoolReport{
		Nodes:              []*preflight.Report{{Node: "node-" + evil, Verdict: "would succeed"}, {Node: "n2", Verdict: "would succeed"}},
		MaxConcurrentNodes: 2,
		Capacity: &preflight.CapacityReport{NodesOutside: 1, NodesOutsideUnschedulable: 2, UsageKnown: true,
			Resources: []preflight.ResourceCapacity{{Name: "cpu", Unit: "millicores", Needed: 12000, FreeOutside: 4000},
				{Name: "memory", Unit: "bytes", Needed: 24 << 30, FreeOutside: 8 << 30}},
			Unplaced: []preflight.UnplacedPod{{Pod: "shop/web-" + evil, Node: "n2", Reason: "not enough cpu"}}},
		Budgets: []preflight.PoolBudget{{Namespace: "shop", Name: "pdb-" + evil, Nodes: []string{"node-" + evil, "n2"},
			PodsInPool: 5, HealthyInPool: 4, DisruptionsAllowed: 1, PerWave: 1, Waves: 4, WaveSeconds: 2}},
		DrainTogether: [][]string{{"node-" + evil}, {"n2"}},
		Blockers:      []preflight.Issue{{Kind: "pool-no-capacity", Message: "no room for " + evil, Refuses: true}},
		Verdict:       "would not start: " + evil,
	}
	var b bytes.Buffer
	PoolPreflight(&b, r, 0)
	out := b.String()
	if strings.ContainsAny(out, "\x1b\u202e") {
		t.Errorf("raw control characters: %q", out)
	}
	for _, want := range []string{"Preflight for node node-", "Preflight for node n2",
		"Pool preflight: 2 node(s), 0 pod(s) to evict, 2 node(s) at a time",
		"RESOURCE", "NEEDED", "FREE OUTSIDE POOL", "NODES OUTSIDE", "12 CPU", "4 CPU", "24 GiB", "8 GiB", "1 (+2 cordoned or not Ready)",
		"Pods that fit nowhere outside the pool: 1", "not enough cpu",
		"PodDisruptionBudgets across the pool:", "PODS IN POOL", "5 (4 Ready)", "4 (1 per wave, ~2s each)",
		"Nodes that can drain together", "  - n2", "Pool blockers:", "[pool-no-capacity] no room for",
		`Pool verdict: would not start: p\x1b[2J\u202e`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Pool estimated time") {
		t.Errorf("a blocked pool prints an estimate:\n%s", out)
	}
}

// An unblocked pool prints its estimate with the ideal beside it.
func TestPoolPreflightEstimate(t *testing.T) {
	est, ideal := int64(36), 14.0
	var b bytes.Buffer
	PoolPreflight(&b, &preflight.PoolReport{MaxConcurrentNodes: 3, EstimatedSeconds: &est, IdealSeconds: &ideal,
		Capacity: &preflight.CapacityReport{UsageKnown: false}, Verdict: "would succeed"}, 0)
	out := b.String()
	for _, want := range []string{"Pool estimated time: 36s, 3 node(s) at a time", "ideal under the budgets 14s",
		"FREE OUTSIDE POOL (ALLOCATABLE, USAGE UNKNOWN)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
