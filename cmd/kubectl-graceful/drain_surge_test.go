package main

import (
	"strings"
	"testing"
	"time"
)

func TestValidateSurgeAndOrder(t *testing.T) {
	cases := map[string]struct {
		mutate func(o *DrainNodeOptions)
		want   string
	}{
		"surge with disable-eviction": {func(o *DrainNodeOptions) { o.Flags.Surge, o.Flags.DisableEviction, o.YesBypassPDB = true, true, true }, "--surge"},
		"surge with a selector":       {func(o *DrainNodeOptions) { o.Flags.Surge, o.NodeNames, o.Selector = true, nil, "a=b" }, "one node"},
		"surge with two nodes":        {func(o *DrainNodeOptions) { o.Flags.Surge, o.NodeNames = true, []string{"a", "b"} }, "one node"},
		"unknown order":               {func(o *DrainNodeOptions) { o.Flags.Order = "priorty" }, `did you mean "priority"?`},
		"surge and order priority":    {func(o *DrainNodeOptions) { o.Flags.Surge, o.Flags.Order = true, "priority" }, ""},
		"order none":                  {func(o *DrainNodeOptions) { o.Flags.Order = "none" }, ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			o := &DrainNodeOptions{NodeNames: []string{"n"}, DryRun: "none", RetryDelay: time.Second, RetryMax: 10 * time.Second, MaxConcurrentNodes: 1}
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
