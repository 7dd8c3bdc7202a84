package main

import (
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// Every check's explanation carries its why (moved from pkg/inspect's
// TestEveryCheckIsDocumented with the text it tested) and its source
// (whose form pkg/inspect's TestEveryExplanationNamesAnOpenableSource
// checks); an unknown ID is
// refused in Validate, with the closest ID when it looks like a typo, with
// exit 1.
func TestAuditExplainEveryCheck(t *testing.T) {
	for _, c := range inspect.Checks() {
		if text := explainText(c); !strings.Contains(text, c.Explanation.Why) || !strings.Contains(text, "Source:\n  "+c.Explanation.Source+"\n") {
			t.Errorf("explainText(%s) lacks its why or its source: %q", c.ID, text)
		}
	}
	o := &auditExplainOptions{id: "nope"}
	if err := o.Validate(); err == nil || err.Error() != `unknown check "nope" (kubectl graceful audit explain lists the checks)` {
		t.Errorf("audit explain nope: %v, want an error saying where the checks are listed", err)
	}
	res := run(t, pluginBin, "audit", "explain", "missing-prestp")
	if want := `error: unknown check "missing-prestp"; did you mean "missing-prestop"? (kubectl graceful audit explain lists the checks)` + "\n"; res.code != 1 || res.stderr != want {
		t.Errorf("audit explain missing-prestp: exit %d, stderr %q, want %q", res.code, res.stderr, want)
	}
}
