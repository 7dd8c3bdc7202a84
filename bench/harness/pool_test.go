package harness

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

func TestIdealPool(t *testing.T) {
	const term, rec = 2 * time.Second, 3 * time.Second
	half := func(n int) []poolBudget { // 20 budgets of 6 pods allowing 3
		var bs []poolBudget
		for i := 0; i < n; i++ {
			bs = append(bs, poolBudget{Name: "d", PodsInPool: 6, AllowedPerWave: 3})
		}
		return bs
	}
	cases := map[string]struct {
		budgets           []poolBudget
		nodes, concurrent int
		want              time.Duration
		waves, rounds     int
		budget            string
	}{
		// Two waves: termination + one recovery; two rounds of nodes: 2 x termination.
		"benchmark pool, 3 nodes at a time": {half(20), 6, 3, term + rec, 2, 2, "d"},
		// One node at a time: six nodes emptied one after another.
		"benchmark pool, one node at a time": {half(20), 6, 1, 6 * term, 2, 6, "d"},
		// maxUnavailable 1 over 6 pods: six waves, whatever the concurrency.
		"one at a time budget": {[]poolBudget{{"a", 6, 3}, {"slow", 6, 1}, {"b", 4, 4}}, 6, 6, term + 5*rec, 6, 1, "slow"},
		// ceil(5/2) = 3 waves.
		"rounds up": {[]poolBudget{{"odd", 5, 2}}, 2, 2, term + 2*rec, 3, 1, "odd"},
		// A budget without pods in the pool does not count, even if it allows none.
		"budget elsewhere": {[]poolBudget{{"none", 0, 0}}, 4, 2, 2 * term, 0, 2, ""},
		"no budgets":       {nil, 3, 1, 3 * term, 0, 3, ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := idealPool(c.budgets, c.nodes, c.concurrent, term, rec)
			if err != nil {
				t.Fatal(err)
			}
			if got.Took != c.want || got.Waves != c.waves || got.Rounds != c.rounds || got.Budget != c.budget {
				t.Errorf("got %+v, want %s with %d waves (%q), %d rounds", got, c.want, c.waves, c.budget, c.rounds)
			}
		})
	}
}

func TestIdealPoolErrors(t *testing.T) {
	if _, err := idealPool([]poolBudget{{"stuck", 3, 0}}, 3, 1, time.Second, time.Second); err == nil || !strings.Contains(err.Error(), "PDB stuck allows no disruption") {
		t.Errorf("blocking budget: got %v", err)
	}
	if _, err := idealPool(nil, 3, 0, time.Second, time.Second); err == nil {
		t.Error("concurrency 0: no error")
	}
}

func TestTallyEvictions(t *testing.T) {
	pool := map[string]bool{"old-0": true, "old-1": true}
	start := map[types.UID]string{"a": "old-0", "b": "old-1", "c": "spare-0"}
	cases := map[string]struct {
		events         []podEvent
		evicted, again int
		perPod         float64
		gone           bool
	}{
		// Cordon first: replacements land on the spare, each pod evicted once.
		"each once": {events: []podEvent{
			{UID: "a", Node: "old-0", Deleting: true}, {UID: "a2"}, {UID: "a2", Node: "spare-0"},
			{UID: "b", Node: "old-1", Deleting: true}, {UID: "a", Node: "old-0", Deleting: true, Gone: true},
			{UID: "b", Node: "old-1", Deleting: true, Gone: true},
		}, evicted: 2, again: 0, perPod: 1, gone: true},
		// Node by node without cordoning ahead: a's replacement lands on
		// old-1 and is evicted with b.
		"evicted again": {events: []podEvent{
			{UID: "a", Node: "old-0", Deleting: true}, {UID: "a2", Node: "old-1"},
			{UID: "a", Node: "old-0", Deleting: true, Gone: true},
			{UID: "b", Node: "old-1", Deleting: true}, {UID: "a2", Node: "old-1", Deleting: true},
			{UID: "b", Node: "old-1", Deleting: true, Gone: true}, {UID: "a2", Node: "old-1", Deleting: true, Gone: true},
		}, evicted: 3, again: 1, perPod: 1.5, gone: true},
		// A pod off the pool deleted by someone else is no eviction from the
		// pool; b not yet seen gone.
		"off the pool": {events: []podEvent{
			{UID: "c", Node: "spare-0", Deleting: true}, {UID: "a", Node: "old-0", Deleting: true, Gone: true},
			{UID: "b", Node: "old-1", Deleting: true},
		}, evicted: 2, again: 0, perPod: 1, gone: false},
		// A Pending pod deleted is not bound to the pool.
		"pending": {events: []podEvent{{UID: "p", Deleting: true, Gone: true}}, evicted: 0, perPod: 0, gone: false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got := tallyEvictions(start, pool, c.events)
			if got.AtStart != 2 || got.Evicted != c.evicted || got.EvictedAgain != c.again || got.PerPod() != c.perPod {
				t.Errorf("got %+v (%.2f per pod), want 2 at start, %d evicted, %d again, %.2f per pod", got, got.PerPod(), c.evicted, c.again, c.perPod)
			}
			if g := poolPodsGone(start, pool, c.events); g != c.gone {
				t.Errorf("poolPodsGone = %v, want %v", g, c.gone)
			}
		})
	}
	if got := (evictionTally{}).PerPod(); got != 0 {
		t.Errorf("no pods: %v per pod", got)
	}
}
