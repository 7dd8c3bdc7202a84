package drain

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestOutputEscapesClusterText(t *testing.T) {
	evil := "web\x1b[2J\u202e"
	line := progressLine(PodProgress{Namespace: "shop", Name: evil, State: StateBlocked, Cause: "PDB " + evil}, time.Second)
	var b bytes.Buffer
	PrintSummary(&b, &NodeResult{Node: evil, Outcome: OutcomeInterrupted, CordonedByUs: true,
		Pods: []PodProgress{{Namespace: "shop", Name: evil, State: StateStopped, Cause: evil}}})
	PrintPreflight(&b, &Report{Node: evil, Verdict: evil, Blockers: []Issue{{Kind: BlockerDoNotDisrupt, Message: evil}}})
	for name, out := range map[string]string{"progress": line, "summary and preflight": b.String()} {
		if strings.ContainsAny(out, "\x1b\u202e") {
			t.Errorf("%s output carries raw control characters: %q", name, out)
		}
		if !strings.Contains(out, `web\x1b[2J\u202e`) {
			t.Errorf("%s output lacks the escaped name: %q", name, out)
		}
	}
}

func TestSummaryTellsWhatIsLeftAndTheCordon(t *testing.T) {
	var b bytes.Buffer
	PrintSummary(&b, &NodeResult{Node: "n1", Outcome: OutcomeTimedOut, CordonedByUs: true, Pods: []PodProgress{
		{Namespace: "shop", Name: "a", State: StateGone, Attempts: 1},
		{Namespace: "shop", Name: "b", State: StateStopped, Attempts: 4, Cause: "The disruption budget web needs 2 healthy pods and has 2 currently"},
	}})
	out := b.String()
	for _, want := range []string{"NOT drained: --timeout reached", "evicted: 1, still on the node: 1",
		"The disruption budget web needs 2 healthy pods and has 2 currently", "node n1 stays cordoned; `kubectl uncordon n1`"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}
