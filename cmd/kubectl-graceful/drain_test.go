package main

import (
	"strings"
	"testing"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/cliutil"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

func TestValidateRefusesDangerousOrContradictoryFlags(t *testing.T) {
	ok := func() *DrainNodeOptions {
		return &DrainNodeOptions{NodeNames: []string{"n"}, DryRun: "none", RetryDelay: time.Second, RetryMax: 10 * time.Second, MaxConcurrentNodes: 1}
	}
	cases := map[string]struct {
		mutate func(o *DrainNodeOptions)
		want   string
	}{
		"no node":                      {func(o *DrainNodeOptions) { o.NodeNames = nil }, "name the nodes or select them with -l"},
		"named twice":                  {func(o *DrainNodeOptions) { o.NodeNames = []string{"n", "n"} }, `node "n" is named twice`},
		"names and selector":           {func(o *DrainNodeOptions) { o.Selector = "a=b" }, "not both"},
		"disable-eviction alone":       {func(o *DrainNodeOptions) { o.Flags.DisableEviction = true }, "--yes-bypass-pdb"},
		"bad dry-run":                  {func(o *DrainNodeOptions) { o.DryRun = "yes" }, "--dry-run"},
		"bad output":                   {func(o *DrainNodeOptions) { o.Output = "yml" }, `did you mean "yaml"?`},
		"bad pod selector":             {func(o *DrainNodeOptions) { o.PodSelector = "a in (" }, "--pod-selector"},
		"zero retry delay":             {func(o *DrainNodeOptions) { o.RetryDelay = 0 }, "--eviction-retry-delay"},
		"zero concurrent nodes":        {func(o *DrainNodeOptions) { o.MaxConcurrentNodes = 0 }, "--max-concurrent-nodes"},
		"disable-eviction with bypass": {func(o *DrainNodeOptions) { o.Flags.DisableEviction, o.YesBypassPDB = true, true }, ""},
		"defaults":                     {func(o *DrainNodeOptions) {}, ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			o := ok()
			c.mutate(o)
			err := o.Validate()
			if c.want == "" && err != nil {
				t.Fatalf("Validate() = %v, want nil", err)
			}
			if c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("Validate() = %v, want an error mentioning %q", err, c.want)
			}
		})
	}
}

func TestExitFor(t *testing.T) {
	clean := &preflight.Report{}
	blocked := &preflight.Report{Blockers: []preflight.Issue{{Kind: "pdb-allows-none"}}}
	cases := []struct {
		name    string
		results []*drain.NodeResult
		want    int
	}{
		{"drained", []*drain.NodeResult{{Outcome: drain.OutcomeDrained, Preflight: clean}}, cliutil.ExitOK},
		{"dry-run clean", []*drain.NodeResult{{Outcome: drain.OutcomeDryRun, Preflight: clean}}, cliutil.ExitOK},
		{"dry-run blocker", []*drain.NodeResult{{Outcome: drain.OutcomeDryRun, Preflight: blocked}}, cliutil.ExitRisk},
		{"one of two timed out", []*drain.NodeResult{{Outcome: drain.OutcomeDrained, Preflight: clean}, {Outcome: drain.OutcomeTimedOut, Preflight: blocked}}, cliutil.ExitRisk},
		{"interrupted before second node", []*drain.NodeResult{{Outcome: drain.OutcomeDrained, Preflight: clean}}, cliutil.ExitRisk},
	}
	for _, c := range cases {
		want := 1
		if c.name == "interrupted before second node" {
			want = 2
		}
		if got := cliutil.CodeOf(exitFor(c.results, max(want, len(c.results)))); got != c.want {
			t.Errorf("%s: exit %d, want %d", c.name, got, c.want)
		}
	}
}

func TestPoolExit(t *testing.T) {
	clean := &preflight.PoolReport{}
	blocked := &preflight.PoolReport{Blockers: []preflight.Issue{{Kind: "pool-no-capacity"}}}
	for _, c := range []struct {
		res  *drain.PoolResult
		want int
	}{
		{&drain.PoolResult{Outcome: drain.OutcomeDrained, Preflight: clean}, cliutil.ExitOK},
		{&drain.PoolResult{Outcome: drain.OutcomeDryRun, Preflight: clean}, cliutil.ExitOK},
		{&drain.PoolResult{Outcome: drain.OutcomeDryRun, Preflight: blocked}, cliutil.ExitRisk},
		{&drain.PoolResult{Outcome: drain.OutcomeRefused, Preflight: blocked}, cliutil.ExitRisk},
		{&drain.PoolResult{Outcome: "not-drained", Preflight: clean}, cliutil.ExitRisk},
		{&drain.PoolResult{Outcome: drain.OutcomeInterrupted, Preflight: clean}, cliutil.ExitRisk},
	} {
		if got := cliutil.CodeOf(poolExit(c.res)); got != c.want {
			t.Errorf("%s (blocked %v): exit %d, want %d", c.res.Outcome, c.res.Preflight.Blocked(), got, c.want)
		}
	}
}
