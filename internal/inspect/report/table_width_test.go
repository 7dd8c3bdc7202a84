package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter/pkg/twwidth"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// longMessage is a finding whose message is longer than any terminal line.
func longMessage() *inspect.Report {
	r := sample()
	r.Findings[0].Message = "behind Service web with no preStop hook: SIGTERM races endpoint removal, and " +
		"kube-proxy, Ingress controllers and load balancers keep sending requests to the pod for a while"
	return r
}

func TestTableMessageWrapsToTheTerminal(t *testing.T) {
	for _, color := range []bool{false, true} {
		var b bytes.Buffer
		if err := TableWidth(&b, longMessage(), color, 80); err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(b.String(), "\n") {
			if !strings.HasPrefix(l, " ") { // the lines after the table
				break
			}
			if w := twwidth.Width(l); w > 80 {
				t.Errorf("colour %v: table line of %d columns on an 80-column terminal: %q", color, w, l)
			}
			if strings.TrimRight(l, " ") != l {
				t.Errorf("colour %v: trailing blanks: %q", color, l)
			}
		}
		if !strings.Contains(b.String(), "for a while") {
			t.Errorf("colour %v: the end of the message is lost:\n%s", color, b.String())
		}
	}
}

func TestTableInAPipeKeepsMessagesWhole(t *testing.T) {
	var b bytes.Buffer
	if err := TableWidth(&b, longMessage(), false, 0); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), longMessage().Findings[0].Message) {
		t.Errorf("the message is wrapped in a pipe:\n%s", b.String())
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.TrimRight(l, " ") != l {
			t.Errorf("padding past the last column: %q", l)
		}
	}
}
