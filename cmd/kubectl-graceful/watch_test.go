package main

import (
	"strings"
	"testing"
	"time"
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
