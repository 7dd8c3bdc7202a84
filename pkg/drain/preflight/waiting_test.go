package preflight

import (
	"strings"
	"testing"
)

// waitingPhrases are the ways a blocker says whether waiting can help:
// that it will not, that it helps only if something named happens, or
// what the drain waits for.
var waitingPhrases = []string{"waiting will not help", "waiting does not help", "waiting helps only", "the drain waits for"}

// preflightOf is Check, failing t when a blocker does not say whether
// waiting can help.
func preflightOf(t testing.TB, in Input) *Report {
	t.Helper()
	r := Check(in)
	saysWhetherWaitingHelps(t, r.Blockers)
	return r
}

// poolPreflightOf is CheckPool, with the same check on every blocker.
func poolPreflightOf(t testing.TB, in PoolInput) *PoolReport {
	t.Helper()
	r := CheckPool(in)
	saysWhetherWaitingHelps(t, r.Blockers)
	for _, n := range r.Nodes {
		saysWhetherWaitingHelps(t, n.Blockers)
	}
	return r
}

func saysWhetherWaitingHelps(t testing.TB, blockers []Issue) {
	t.Helper()
	for _, b := range blockers {
		ok := false
		for _, p := range waitingPhrases {
			ok = ok || strings.Contains(b.Message, p)
		}
		if !ok {
			t.Errorf("blocker %s does not say whether waiting helps: %q", b.Kind, b.Message)
		}
	}
}
