package main

import "testing"

func TestDidYouMean(t *testing.T) {
	ids := checkIDs()
	for _, c := range []struct {
		typed string
		known []string
		want  string
	}{
		{"missing-prestp", ids, `; did you mean "missing-prestop"?`},
		{"yml", watchFormats, `; did you mean "yaml"?`},
		{"jsno", watchFormats, `; did you mean "json"?`},
		{"warn", failOnValues, `; did you mean "warning"?`},
		{"Client", dryRunModes, `; did you mean "client"?`},
		{"table", watchFormats, ""},
		{"nope", ids, ""},
		{"x", colorValues, ""},
	} {
		if got := didYouMean(c.typed, c.known); got != c.want {
			t.Errorf("didYouMean(%q) = %q, want %q", c.typed, got, c.want)
		}
	}
}
