package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/eviction"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

func TestWatchPodValidate(t *testing.T) {
	ok := watchPodOptions{watchFlags: watchFlags{settle: time.Second, propagation: 5 * time.Second}, name: "web-0", gracePeriod: -1}
	cases := []struct {
		name string
		edit func(o *watchPodOptions)
		want string // "" = valid
	}{
		{"wait", func(o *watchPodOptions) {}, ""},
		{"delete with grace", func(o *watchPodOptions) { o.delete, o.gracePeriod = true, 5 }, ""},
		{"evict json", func(o *watchPodOptions) { o.evict, o.output = true, "json" }, ""},
		{"both", func(o *watchPodOptions) { o.delete, o.evict = true, true }, "--delete and --evict are exclusive"},
		{"grace alone", func(o *watchPodOptions) { o.gracePeriod = 5 }, "--grace-period needs --delete or --evict"},
		{"grace 0", func(o *watchPodOptions) { o.delete, o.gracePeriod = true, 0 }, "force delete"},
		{"negative settle", func(o *watchPodOptions) { o.settle = -time.Second }, "must not be negative"},
		{"yml", func(o *watchPodOptions) { o.output = "yml" }, `--output "yml" is not supported for watch pod: use json, yaml, mermaid, or leave it out; did you mean "yaml"?`},
		{"yaml", func(o *watchPodOptions) { o.output = "yaml" }, ""},
		{"propagation 1s", func(o *watchPodOptions) { o.propagation = time.Second }, ""},
		{"propagation 0", func(o *watchPodOptions) { o.propagation = 0 }, "--propagation 0s is not allowed"},
		{"ingress API", func(o *watchPodOptions) { o.ingressAPI = "http://10.0.0.5:9000" }, ""},
		{"ingress API not a URL", func(o *watchPodOptions) { o.ingressAPI = "10.0.0.5:9000" }, "--ingress-api \"10.0.0.5:9000\" is not an http(s) URL"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := ok
			c.edit(&o)
			err := o.Validate()
			switch {
			case c.want == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// --propagation defaults to the audit's preStop floor, and so does the
// verdict when no propagation is given.
func TestWatchPropagationDefaultIsThePreStopFloor(t *testing.T) {
	floor := time.Duration(inspect.DefaultOptions().PreStopFloorSeconds) * time.Second
	cmd := newCmdWatchPod(&watchPodOptions{watchFlags: watchFlags{configFlags: genericclioptions.NewConfigFlags(false), IOStreams: genericiooptions.NewTestIOStreamsDiscard()}})
	if got := cmd.Flags().Lookup("propagation").DefValue; got != floor.String() {
		t.Errorf("--propagation default %s, want the audit's --prestop-floor %s", got, floor)
	}
	if timeline.DefaultPropagation != floor {
		t.Errorf("timeline.DefaultPropagation %s, want %s", timeline.DefaultPropagation, floor)
	}
}

// watch node refuses its node arguments as drain node and uncordon do,
// before its flags: the same line for the same mistake.
func TestWatchNodeValidate(t *testing.T) {
	for _, c := range []struct {
		edit func(o *watchNodeOptions)
		want string // "" = valid
	}{
		{func(o *watchNodeOptions) {}, ""},
		{func(o *watchNodeOptions) { o.nodes = nil }, "name the nodes or select them with -l: kubectl graceful watch node NAME... (or -l SELECTOR)"},
		{func(o *watchNodeOptions) { o.selector = "pool=old" }, "name nodes or select them with -l, not both"},
		{func(o *watchNodeOptions) { o.nodes = []string{"n", "n"}; o.settle = -time.Second }, `node "n" is named twice`},
		{func(o *watchNodeOptions) { o.settle = -time.Second }, "--settle and --timeout must not be negative"},
		{func(o *watchNodeOptions) { o.output = "yml" }, `--output "yml" is not supported for watch node`},
		{func(o *watchNodeOptions) { o.propagation = 0 }, "--propagation 0s is not allowed"},
	} {
		o := watchNodeOptions{watchFlags: watchFlags{settle: time.Second, propagation: 5 * time.Second}, nodes: []string{"n"}}
		c.edit(&o)
		err := o.Validate()
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", o, err, c.want)
		}
	}
}

// A watch that saw no termination prints no verdict: the error says what
// happened instead.
func TestWatchNoTerminationSaysWhatHappened(t *testing.T) {
	tl := &timeline.Timeline{Namespace: "shop", Pod: "web-0"}
	refused := &timeline.Timeline{Namespace: "shop", Pod: "web-0", Events: []timeline.Event{{Kind: timeline.KindEvictionRefused,
		Message: "Eviction refused (429): The disruption budget web-pdb needs 1 healthy pods and has 1 currently; retrying"}}}
	forbidden := errors.New(`deleting pod shop/web-0: pods "web-0" is forbidden: User "system:serviceaccount:shop:limited" cannot delete resource "pods"`)
	timeout := fmt.Errorf("%w before pod shop/web-0 was gone: the timeline above is partial", &eviction.TimeoutError{Timeout: 30 * time.Second})
	interrupt := fmt.Errorf("%w before pod shop/web-0 was gone: the timeline above is partial", timeline.ErrInterrupted)
	cases := []struct {
		name  string
		o     watchPodOptions
		tl    *timeline.Timeline
		err   error
		want  string
		avoid string
	}{
		{"forbidden delete keeps its error", watchPodOptions{delete: true}, tl, forbidden, forbidden.Error(), "verdict"},
		{"nobody deleted it", watchPodOptions{watchFlags: watchFlags{timeout: 30 * time.Second}}, tl, timeout, "nobody deleted pod shop/web-0 before --timeout 30s ran out: no termination to judge, no verdict", "partial"},
		{"PDB refusal until the timeout", watchPodOptions{evict: true, watchFlags: watchFlags{timeout: 8 * time.Second}}, refused, timeout,
			"the eviction of pod shop/web-0 was refused until --timeout 8s ran out (last answer: Eviction refused (429): The disruption budget web-pdb needs 1 healthy pods and has 1 currently): not evicted", "retrying"},
		{"Ctrl-C before a deletion", watchPodOptions{}, tl, interrupt, "nobody deleted pod shop/web-0 before the watch was interrupted", "partial"},
		{"eviction cut by the deadline", watchPodOptions{evict: true, watchFlags: watchFlags{timeout: 8 * time.Second}}, refused,
			fmt.Errorf("evicting pod shop/web-0: %w", context.DeadlineExceeded), "the eviction of pod shop/web-0 was refused until --timeout 8s ran out", "deadline"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.o.noTermination(c.tl, c.err)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), c.avoid) {
				t.Errorf("error %v, want one containing %q and not %q", err, c.want, c.avoid)
			}
		})
	}
}

func TestWatchWorkloadArgs(t *testing.T) {
	for _, c := range []struct {
		args       []string
		typ, name  string
		wantErrSub string
	}{
		{[]string{"deployment/web"}, "deployment", "web", ""},
		{[]string{"sts", "db"}, "sts", "db", ""},
		{[]string{"web"}, "", "", "is not TYPE/NAME"},
		{[]string{"deployment/"}, "", "", "is not TYPE/NAME"},
	} {
		typ, name, err := splitWorkloadArgs(c.args)
		switch {
		case c.wantErrSub == "" && (err != nil || typ != c.typ || name != c.name):
			t.Errorf("%v: %q %q %v", c.args, typ, name, err)
		case c.wantErrSub != "" && (err == nil || !strings.Contains(err.Error(), c.wantErrSub)):
			t.Errorf("%v: error %v, want %q", c.args, err, c.wantErrSub)
		}
	}
	cmd := newCmdWatchWorkload(&watchWorkloadOptions{})
	if err := cmd.Args(cmd, nil); err == nil || !strings.Contains(err.Error(), "name one workload") {
		t.Errorf("no arguments: %v", err)
	}
	o := watchWorkloadOptions{workload: rollout.Workload{Kind: "Deployment", Name: "web"}, restart: true, scale: 2}
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "exclusive") {
		t.Errorf("--restart with --scale: %v", err)
	}
	o = watchWorkloadOptions{workload: rollout.Workload{Kind: "ReplicaSet", Name: "web"}, scale: -1}
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "ReplicaSet has no pod template with a rollout") {
		t.Errorf("a ReplicaSet: %v", err)
	}
}

// --propagation is on the rollout watch too, with watch pod's default and
// validation, and reaches every pod's verdict.
func TestWatchWorkloadPropagation(t *testing.T) {
	cmd := newCmdWatchWorkload(&watchWorkloadOptions{})
	pod := newCmdWatchPod(&watchPodOptions{})
	f, pf := cmd.Flags().Lookup("propagation"), pod.Flags().Lookup("propagation")
	if f == nil || pf == nil || f.DefValue != pf.DefValue || f.Usage != pf.Usage {
		t.Fatalf("--propagation of watch TYPE/NAME %+v, of watch pod %+v: want the same flag", f, pf)
	}
	o := watchWorkloadOptions{workload: rollout.Workload{Kind: "Deployment", Name: "web"}, scale: -1}
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "--propagation 0s is not allowed") {
		t.Errorf("--propagation 0: %v", err)
	}
}
