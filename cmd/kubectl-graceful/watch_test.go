package main

import (
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

func TestWatchPodValidate(t *testing.T) {
	ok := WatchPodOptions{Name: "web-0", GracePeriod: -1, Settle: time.Second}
	cases := []struct {
		name string
		edit func(o *WatchPodOptions)
		want string // "" = valid
	}{
		{"wait", func(o *WatchPodOptions) {}, ""},
		{"delete with grace", func(o *WatchPodOptions) { o.Delete, o.GracePeriod = true, 5 }, ""},
		{"evict json", func(o *WatchPodOptions) { o.Evict, o.Output = true, "json" }, ""},
		{"both", func(o *WatchPodOptions) { o.Delete, o.Evict = true, true }, "--delete and --evict are exclusive"},
		{"grace alone", func(o *WatchPodOptions) { o.GracePeriod = 5 }, "--grace-period needs --delete or --evict"},
		{"grace 0", func(o *WatchPodOptions) { o.Delete, o.GracePeriod = true, 0 }, "force delete"},
		{"negative settle", func(o *WatchPodOptions) { o.Settle = -time.Second }, "must not be negative"},
		{"yaml", func(o *WatchPodOptions) { o.Output = "yaml" }, `--output "yaml" is not supported`},
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
	cmd := NewCmdWatchWorkload(nil, genericiooptions.NewTestIOStreamsDiscard())
	if err := cmd.Args(cmd, nil); err == nil || !strings.Contains(err.Error(), "name one workload") {
		t.Errorf("no arguments: %v", err)
	}
	o := WatchWorkloadOptions{Workload: timeline.WorkloadRef{Kind: timeline.KindDeployment, Name: "web"}, Restart: true, Scale: 2}
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "exclusive") {
		t.Errorf("--restart with --scale: %v", err)
	}
	o = WatchWorkloadOptions{Workload: timeline.WorkloadRef{Kind: "ReplicaSet", Name: "web"}, Scale: -1}
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "ReplicaSet has no pod template with a rollout") {
		t.Errorf("a ReplicaSet: %v", err)
	}
}
