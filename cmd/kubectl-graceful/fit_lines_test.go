package main

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// On a 40-column terminal a finding is broken between words under its
// text; a table line, a redrawn progress line and a line that fits pass
// as they are.
func TestLineFitter(t *testing.T) {
	var out bytes.Buffer
	f := lineFitter{w: &out, width: 40}
	finding := "  - window too short: SIGTERM came 1997 ms after the endpoint left every ready set"
	table := "│ graceful-real │ Deployment/hardened │ 1/3              │ 1     │"
	redraw := "\x1b[2A\rpod web-0 evicting pod web-0 evicting pod web-0 evicting\n"
	for _, s := range []string{finding + "\nfits\n", table + "\n", redraw} {
		if _, err := f.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	got := out.String()
	want := "  - window too short: SIGTERM came 1997\n    ms after the endpoint left every\n    ready set\nfits\n" + table + "\n" + redraw
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	for _, l := range strings.Split(strings.SplitN(got, table, 2)[0], "\n") {
		if utf8.RuneCountInString(l) > 40 {
			t.Errorf("line %q is wider than 40 columns", l)
		}
	}
}
