package main

import (
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// Every check's explanation carries its why (moved from pkg/inspect's
// TestEveryCheckIsDocumented with the text it tested); an unknown ID is
// refused in Validate, naming the checks, with exit 1.
func TestAuditExplainEveryCheck(t *testing.T) {
	for _, c := range inspect.Checks() {
		if text := explainText(c); !strings.Contains(text, c.Explanation.Why) {
			t.Errorf("explainText(%s) lacks its why: %q", c.ID, text)
		}
	}
	o := &AuditExplainOptions{ID: "nope"}
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "missing-prestop") {
		t.Errorf("audit explain nope: %v, want an error naming the checks", err)
	}
	res := run(t, pluginBin, "audit", "explain", "nope")
	if res.code != 1 || !strings.HasPrefix(res.stderr, `error: unknown check "nope"; checks: `) {
		t.Errorf("audit explain nope: exit %d, stderr %q", res.code, res.stderr)
	}
}
