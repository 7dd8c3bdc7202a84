package drain

import (
	"strings"
	"testing"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/cliutil"
)

func TestValidateRefusesDangerousOrContradictoryFlags(t *testing.T) {
	ok := func() *Options {
		return &Options{NodeNames: []string{"n"}, DryRun: "none", RetryDelay: time.Second, RetryMax: 10 * time.Second}
	}
	cases := map[string]struct {
		mutate func(o *Options)
		want   string
	}{
		"no node":                      {func(o *Options) { o.NodeNames = nil }, "name a node"},
		"names and selector":           {func(o *Options) { o.Selector = "a=b" }, "not both"},
		"disable-eviction alone":       {func(o *Options) { o.Flags.DisableEviction = true }, "--yes-bypass-pdb"},
		"bad dry-run":                  {func(o *Options) { o.DryRun = "yes" }, "--dry-run"},
		"bad output":                   {func(o *Options) { o.Output = "yaml" }, "--output"},
		"bad pod selector":             {func(o *Options) { o.PodSelector = "a in (" }, "--pod-selector"},
		"zero retry delay":             {func(o *Options) { o.RetryDelay = 0 }, "--eviction-retry-delay"},
		"disable-eviction with bypass": {func(o *Options) { o.Flags.DisableEviction, o.YesBypassPDB = true, true }, ""},
		"defaults":                     {func(o *Options) {}, ""},
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
	clean := &Report{}
	blocked := &Report{Blockers: []Issue{{Kind: BlockerPDBAllowsNone}}}
	cases := []struct {
		name    string
		results []*NodeResult
		want    int
	}{
		{"drained", []*NodeResult{{Outcome: OutcomeDrained, Preflight: clean}}, cliutil.ExitOK},
		{"dry-run clean", []*NodeResult{{Outcome: OutcomeDryRun, Preflight: clean}}, cliutil.ExitOK},
		{"dry-run blocker", []*NodeResult{{Outcome: OutcomeDryRun, Preflight: blocked}}, cliutil.ExitRisk},
		{"one of two timed out", []*NodeResult{{Outcome: OutcomeDrained, Preflight: clean}, {Outcome: OutcomeTimedOut, Preflight: blocked}}, cliutil.ExitRisk},
		{"interrupted before second node", []*NodeResult{{Outcome: OutcomeDrained, Preflight: clean}}, cliutil.ExitRisk},
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
