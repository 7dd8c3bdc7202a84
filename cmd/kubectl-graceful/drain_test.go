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
	ok := func() *drainNodeOptions {
		return &drainNodeOptions{nodeNames: []string{"n"}, dryRun: "none", drainer: drain.Drainer{Backoff: drain.Backoff{Base: time.Second, Cap: 10 * time.Second}, MaxConcurrentNodes: 1}}
	}
	cases := map[string]struct {
		mutate func(o *drainNodeOptions)
		want   string
	}{
		"no node":                      {func(o *drainNodeOptions) { o.nodeNames = nil }, "name the nodes or select them with -l"},
		"named twice":                  {func(o *drainNodeOptions) { o.nodeNames = []string{"n", "n"} }, `node "n" is named twice`},
		"names and selector":           {func(o *drainNodeOptions) { o.selector = "a=b" }, "not both"},
		"disable-eviction alone":       {func(o *drainNodeOptions) { o.drainer.Flags.DisableEviction = true }, "--yes-bypass-pdb"},
		"bad dry-run":                  {func(o *drainNodeOptions) { o.dryRun = "yes" }, "--dry-run"},
		"bad output":                   {func(o *drainNodeOptions) { o.output = "yml" }, `did you mean "yaml"?`},
		"bad pod selector":             {func(o *drainNodeOptions) { o.drainer.PodSelector = "a in (" }, "--pod-selector"},
		"zero retry delay":             {func(o *drainNodeOptions) { o.drainer.Backoff.Base = 0 }, "--eviction-retry-delay"},
		"zero concurrent nodes":        {func(o *drainNodeOptions) { o.drainer.MaxConcurrentNodes = 0 }, "--max-concurrent-nodes"},
		"disable-eviction with bypass": {func(o *drainNodeOptions) { o.drainer.Flags.DisableEviction, o.yesBypassPDB = true, true }, ""},
		"defaults":                     {func(o *drainNodeOptions) {}, ""},
		"ingress API without watch":    {func(o *drainNodeOptions) { o.ingressAPI = "http://10.0.0.5:9000" }, "--ingress-api is read by --watch"},
		"ingress API with watch": {func(o *drainNodeOptions) {
			o.ingressAPI, o.watch, o.propagation = "http://10.0.0.5:9000", true, time.Second
		}, ""},
		"ingress API not a URL": {func(o *drainNodeOptions) { o.ingressAPI, o.watch, o.propagation = "ftp://x", true, time.Second }, "is not an http(s) URL"},
		// --surge and --order.
		"surge with disable-eviction": {func(o *drainNodeOptions) {
			o.drainer.Flags.Surge, o.drainer.Flags.DisableEviction, o.yesBypassPDB = true, true, true
		}, "--surge"},
		"surge with a selector":    {func(o *drainNodeOptions) { o.drainer.Flags.Surge, o.nodeNames, o.selector = true, nil, "a=b" }, "one node"},
		"surge with two nodes":     {func(o *drainNodeOptions) { o.drainer.Flags.Surge, o.nodeNames = true, []string{"a", "b"} }, "one node"},
		"unknown order":            {func(o *drainNodeOptions) { o.drainer.Flags.Order = "priorty" }, `did you mean "priority"?`},
		"surge and order priority": {func(o *drainNodeOptions) { o.drainer.Flags.Surge, o.drainer.Flags.Order = true, "priority" }, ""},
		"order none":               {func(o *drainNodeOptions) { o.drainer.Flags.Order = "none" }, ""},
		// --delete-after.
		"delete-after with dry-run client": {func(o *drainNodeOptions) { o.drainer.DeleteAfter, o.dryRun = 5*time.Second, "client" }, "--dry-run changes nothing"},
		"delete-after with dry-run server": {func(o *drainNodeOptions) { o.drainer.DeleteAfter, o.dryRun = 5*time.Second, "server" }, "--dry-run changes nothing"},
		"delete-after with disable-eviction": {func(o *drainNodeOptions) {
			o.drainer.DeleteAfter, o.drainer.Flags.DisableEviction, o.yesBypassPDB = 5*time.Second, true, true
		}, "--disable-eviction"},
		"delete-after negative": {func(o *drainNodeOptions) { o.drainer.DeleteAfter = -time.Second }, "positive"},
		"delete-after alone":    {func(o *drainNodeOptions) { o.drainer.DeleteAfter = 5 * time.Second }, ""},
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
			if err != nil && cliutil.CodeOf(err) != cliutil.ExitError {
				t.Errorf("exit code %d, want %d", cliutil.CodeOf(err), cliutil.ExitError)
			}
		})
	}
}

// One node's result, as drain.OneNode reports it, exits as a pool's.
func TestOneNodeExit(t *testing.T) {
	clean := &preflight.Report{}
	blocked := &preflight.Report{Blockers: []preflight.Issue{{Kind: "pdb-allows-none"}}}
	cases := []struct {
		name        string
		res         *drain.NodeResult
		interrupted bool
		want        int
	}{
		{"drained", &drain.NodeResult{Outcome: drain.OutcomeDrained, Preflight: clean}, false, cliutil.ExitOK},
		{"dry-run clean", &drain.NodeResult{Outcome: drain.OutcomeDryRun, Preflight: clean}, false, cliutil.ExitOK},
		{"dry-run blocker", &drain.NodeResult{Outcome: drain.OutcomeDryRun, Preflight: blocked}, false, cliutil.ExitRisk},
		{"timed out", &drain.NodeResult{Outcome: drain.OutcomeTimedOut, Preflight: blocked}, false, cliutil.ExitRisk},
		{"interrupted in the preflight", &drain.NodeResult{Outcome: drain.OutcomeInterrupted}, true, cliutil.ExitRisk},
	}
	for _, c := range cases {
		if got := cliutil.CodeOf(poolExit(drain.OneNode(c.res, nil, c.interrupted))); got != c.want {
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
