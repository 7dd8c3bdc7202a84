package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/cliutil"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

// A drain that ended well exits 3 once a budget was overridden; one that
// did not keeps its own code, and the override line is escaped.
func TestBudgetOverrideExit(t *testing.T) {
	var errOut bytes.Buffer
	o := &drainNodeOptions{drainer: drain.Drainer{DeleteAfter: 5 * time.Second}}
	o.ErrOut = &errOut
	b := &budgetOverrides{o: o}
	if got := cliutil.CodeOf(b.exit(nil)); got != cliutil.ExitOK {
		t.Errorf("no override: exit %d, want 0", got)
	}
	b.overriding(drain.BudgetOverride{Node: "n", Namespace: "shop", Pod: "db-0\x1b[2J", Budget: "shop/db"})
	if got := cliutil.CodeOf(b.exit(nil)); got != cliutil.ExitBudgetOverridden {
		t.Errorf("override: exit %d, want %d", got, cliutil.ExitBudgetOverridden)
	}
	if got := cliutil.CodeOf(b.exit(cliutil.Risk())); got != cliutil.ExitRisk {
		t.Errorf("override in a blocked drain: exit %d, want %d", got, cliutil.ExitRisk)
	}
	if got := cliutil.CodeOf(b.exit(errors.New("api"))); got != cliutil.ExitError {
		t.Errorf("override in a failed drain: exit %d, want %d", got, cliutil.ExitError)
	}
	line := errOut.String()
	for _, want := range []string{"deleting pod shop/db-0\\x1b[2J", "PodDisruptionBudget shop/db", "--delete-after 5s"} {
		if !strings.Contains(line, want) {
			t.Errorf("line %q lacks %q", line, want)
		}
	}
}
