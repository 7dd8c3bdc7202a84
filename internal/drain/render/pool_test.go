package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

func TestPoolSummaryTellsEachNodeAndTheEvictionsPerPod(t *testing.T) {
	yes, no := true, false
	evil := "n4\x1b[2J"
	res := &drain.PoolResult{Outcome: drain.OutcomeInterrupted, InitialPods: 8, Evictions: 3, EvictionsPerPod: 0.375,
		EvictedAgain: []string{}, DurationSeconds: 12.34, Nodes: []*drain.PoolNode{
			{NodeResult: &drain.NodeResult{Node: "n1", Outcome: drain.OutcomeDrained, CordonedByUs: true, DurationSeconds: 4},
				Result: drain.OutcomeDrained, Evicted: 2, StaysCordoned: &yes},
			{NodeResult: &drain.NodeResult{Node: "n2", Outcome: drain.OutcomeInterrupted, CordonedByUs: true, Uncordoned: true},
				Result: drain.OutcomePartlyDrained, Evicted: 1, Left: 2, StaysCordoned: &no},
			{NodeResult: &drain.NodeResult{Node: "n3", Outcome: drain.OutcomeInterrupted},
				Result: drain.OutcomeUntouched, Left: 3, StaysCordoned: &yes},
			{NodeResult: &drain.NodeResult{Node: evil, Outcome: drain.OutcomeNodeGone}, Result: drain.OutcomeNodeGone},
		}}
	var b bytes.Buffer
	PoolSummary(&b, res, 0)
	out := b.String()
	t.Log("\n" + out)
	for _, want := range []string{
		"Pool summary: 4 node(s), 1 drained, 1 partly drained, 1 untouched, 1 gone, in 12.3s",
		"│ n1 ", "│ drained ", "yes (by this drain)",
		"partly drained (interrupted)", "no (uncordoned: --uncordon-on-failure)",
		"untouched (interrupted)", "yes (cordoned before)",
		`n4\x1b[2J`,
		"evictions per pod: 0.38 (3 evictions accepted, 8 pod(s) to evict at the start)",
		"pods evicted more than once: 0",
		"pool NOT drained: interrupted",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("pool summary lacks %q", want)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("raw escape in the summary: %q", out)
	}
}

func TestPoolSummaryOfARefusalAndADryRun(t *testing.T) {
	var b bytes.Buffer
	PoolSummary(&b, &drain.PoolResult{Outcome: drain.OutcomeDryRun}, 0)
	if b.Len() != 0 {
		t.Errorf("a dry run has a summary: %q", b.String())
	}
	PoolSummary(&b, &drain.PoolResult{Outcome: drain.OutcomeRefused}, 0)
	if !strings.Contains(b.String(), "not draining the pool") || !strings.Contains(b.String(), "nothing was changed") {
		t.Errorf("refusal summary: %q", b.String())
	}
}

func TestPoolProgressLinesNameTheNodeWhenSeveralRunAtOnce(t *testing.T) {
	var b bytes.Buffer
	txt := NewText(&b, false, 0)
	txt.SetConcurrentNodes(2)
	txt.NodePodChanged("n1", drain.PodProgress{Namespace: "shop", Name: "web-a", State: drain.StateEvicting})
	txt.SetConcurrentNodes(1)
	txt.NodePodChanged("n2", drain.PodProgress{Namespace: "shop", Name: "web-b", State: drain.StateEvicting})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "n1: ") || strings.Contains(lines[1], "n2") {
		t.Errorf("progress lines %q: want the first prefixed with n1, the second plain", lines)
	}
}

// A pool drain interrupted before its preflight ended has no node to
// summarise: one line says so and that nothing was changed.
func TestPoolSummaryOfAnInterruptedPreflight(t *testing.T) {
	var b bytes.Buffer
	PoolSummary(&b, &drain.PoolResult{Outcome: drain.OutcomeInterrupted, Nodes: []*drain.PoolNode{}}, 0)
	if got, want := strings.TrimSpace(b.String()), "not draining the pool: interrupted during the preflight; nothing was changed"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
}

// A pod --delete-after deleted past its budget was not evicted: the
// summary counts it apart, on its node and in the evictions per pod.
func TestPoolSummaryCountsDeletionsPastBudgetApart(t *testing.T) {
	yes := true
	res := &drain.PoolResult{Outcome: drain.OutcomeDrained, InitialPods: 3, Evictions: 1, DeletedPastBudget: 2,
		EvictionsPerPod: 1.0 / 3, EvictedAgain: []string{}, Nodes: []*drain.PoolNode{
			{NodeResult: &drain.NodeResult{Node: "a", Outcome: drain.OutcomeDrained, CordonedByUs: true},
				Result: drain.OutcomeDrained, Evicted: 1, DeletedPastBudget: 1, StaysCordoned: &yes},
			{NodeResult: &drain.NodeResult{Node: "b", Outcome: drain.OutcomeDrained, CordonedByUs: true},
				Result: drain.OutcomeDrained, DeletedPastBudget: 1, StaysCordoned: &yes},
		}}
	var b bytes.Buffer
	PoolSummary(&b, res, 0)
	out := b.String()
	for _, want := range []string{
		"│ 1 (+1 deleted past budget) ", "│ 0 (+1 deleted past budget) ",
		"evictions per pod: 0.33 (1 evictions accepted, 2 pod(s) deleted past their budget (--delete-after), 3 pod(s) to evict at the start)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("pool summary lacks %q:\n%s", want, out)
		}
	}
}
