package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter/pkg/twwidth"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

func interrupted() *drain.NodeResult {
	return &drain.NodeResult{Node: "n1", Outcome: drain.OutcomeInterrupted, CordonedByUs: true, EvictionsStarted: true,
		Pods: []drain.PodProgress{
			{Namespace: "shop", Name: "web-7d4b9c-abcde", State: drain.StateGone, Attempts: 1},
			{Namespace: "shop", Name: "web-7d4b9c-fghij", State: drain.StateStopped, Attempts: 6,
				Cause: "The disruption budget web needs 2 healthy pods and has 2 currently; The disruption budget web-canary is still being processed by the server."},
		}}
}

// tableLines returns the lines of the summary's table (drawn with box
// characters).
func tableLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.ContainsAny(l, "│┌└├") {
			lines = append(lines, l)
		}
	}
	return lines
}

func TestSummaryCauseWrapsToTheTerminal(t *testing.T) {
	var b bytes.Buffer
	Summary(&b, interrupted(), 72)
	lines := tableLines(b.String())
	if len(lines) < 6 {
		t.Fatalf("no wrapped table in:\n%s", b.String())
	}
	for _, l := range lines {
		if w := twwidth.Width(l); w > 72 {
			t.Errorf("line of %d columns on a 72-column terminal: %q", w, l)
		}
	}
	if !strings.Contains(b.String(), "processed by the") {
		t.Errorf("the end of the cause is lost:\n%s", b.String())
	}
}

func TestSummaryInAPipeKeepsCausesWhole(t *testing.T) {
	var b bytes.Buffer
	Summary(&b, interrupted(), 0)
	if !strings.Contains(b.String(), interrupted().Pods[1].Cause) {
		t.Errorf("the cause is wrapped in a pipe:\n%s", b.String())
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.TrimRight(l, " ") != l {
			t.Errorf("trailing blanks: %q", l)
		}
	}
}
