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

func TestValidateDeleteAfter(t *testing.T) {
	cases := map[string]struct {
		mutate func(o *DrainNodeOptions)
		want   string
	}{
		"with dry-run client":   {func(o *DrainNodeOptions) { o.DryRun = "client" }, "--dry-run changes nothing"},
		"with dry-run server":   {func(o *DrainNodeOptions) { o.DryRun = "server" }, "--dry-run changes nothing"},
		"with disable-eviction": {func(o *DrainNodeOptions) { o.Flags.DisableEviction, o.YesBypassPDB = true, true }, "--disable-eviction"},
		"negative":              {func(o *DrainNodeOptions) { o.DeleteAfter = -time.Second }, "positive"},
		"alone":                 {func(o *DrainNodeOptions) {}, ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			o := &DrainNodeOptions{NodeNames: []string{"n"}, DryRun: "none", RetryDelay: time.Second, RetryMax: 5 * time.Second,
				MaxConcurrentNodes: 1, DeleteAfter: 5 * time.Second}
			c.mutate(o)
			err := o.Validate()
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("Validate() = %v, want %q", err, c.want)
			}
			if err != nil && cliutil.CodeOf(err) != cliutil.ExitError {
				t.Errorf("exit code %d, want %d", cliutil.CodeOf(err), cliutil.ExitError)
			}
		})
	}
}

// A drain that ended well exits 3 once a budget was overridden; one that
// did not keeps its own code, and the override line is escaped.
func TestBudgetOverrideExit(t *testing.T) {
	var errOut bytes.Buffer
	o := &DrainNodeOptions{DeleteAfter: 5 * time.Second}
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
