package harness

import "k8s.io/apimachinery/pkg/types"

// podEvent is what the pool benchmark's pod watch keeps of one event: the
// pod, the node it is bound to ("" while Pending), whether it is being
// deleted (deletionTimestamp set, or the DELETED event itself) and whether
// it is gone (DELETED).
type podEvent struct {
	UID      types.UID
	Node     string
	Deleting bool
	Gone     bool
}

// evictionTally counts a pool drain's evictions the same way for any tool,
// from the pods alone.
type evictionTally struct {
	// AtStart is how many pods were bound to a pool node, not terminating,
	// when the drain started.
	AtStart int
	// Evicted is how many distinct pods got a deletionTimestamp while bound
	// to a pool node.
	Evicted int
	// EvictedAgain is how many of those were not on the pool at the start:
	// replacements of evicted pods that landed on a pool node not yet
	// drained and were evicted in their turn.
	EvictedAgain int
}

// PerPod is evictions per pod that was on the pool at the start (1.00: each
// evicted once), 0 when there was none.
func (t evictionTally) PerPod() float64 {
	if t.AtStart == 0 {
		return 0
	}
	return float64(t.Evicted) / float64(t.AtStart)
}

// tallyEvictions counts the evictions of a pool drain from the pods bound
// at the start (UID to node, terminating ones left out) and the events seen
// since, in order.
func tallyEvictions(start map[types.UID]string, pool map[string]bool, events []podEvent) evictionTally {
	var t evictionTally
	for _, node := range start {
		if pool[node] {
			t.AtStart++
		}
	}
	evicted := map[types.UID]bool{}
	for _, e := range events {
		if !e.Deleting || !pool[e.Node] || evicted[e.UID] {
			continue
		}
		evicted[e.UID] = true
		t.Evicted++
		if !pool[start[e.UID]] {
			t.EvictedAgain++
		}
	}
	return t
}

// poolPodsGone reports whether every pod the events (and the start) show
// bound to a pool node has been seen gone: once the drain has emptied the
// pool, the watch has then delivered every deletion the tally needs.
func poolPodsGone(start map[types.UID]string, pool map[string]bool, events []podEvent) bool {
	onPool := map[types.UID]bool{}
	for uid, node := range start {
		if pool[node] {
			onPool[uid] = true
		}
	}
	for _, e := range events {
		if pool[e.Node] {
			onPool[e.UID] = true
		}
	}
	for _, e := range events {
		if e.Gone {
			delete(onPool, e.UID)
		}
	}
	return len(onPool) == 0
}
