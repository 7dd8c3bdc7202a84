package main

import (
	"testing"
	"time"
)

func TestParseAction(t *testing.T) {
	for _, c := range []struct {
		in     string
		action string
		drain  time.Duration
		bad    bool
	}{
		{"", "exit", 0, false}, {"exit", "exit", 0, false}, {"ignore", "ignore", 0, false},
		{"drain:5s", "drain", 5 * time.Second, false}, {"drain:1500ms", "drain", 1500 * time.Millisecond, false},
		{"drain:", "", 0, true}, {"drain:-1s", "", 0, true}, {"stop", "", 0, true},
	} {
		a, d, err := parseAction(c.in)
		if (err != nil) != c.bad || a != c.action || d != c.drain {
			t.Errorf("parseAction(%q) = %q, %s, %v; want %q, %s, bad=%v", c.in, a, d, err, c.action, c.drain, c.bad)
		}
	}
}
