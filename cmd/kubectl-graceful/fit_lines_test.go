package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"
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

// Under drain --watch on a 60-column terminal, a warning broken in two
// keeps the clock's stamp and its own indent on each line, and the
// summary after the stamps is fitted to the whole width again.
func TestStampedLinesAreFittedBeforeTheStamp(t *testing.T) {
	var out bytes.Buffer
	o := &drainNodeOptions{}
	o.Out = lineFitter{w: &out, width: 60}
	clock := &syncWriter{w: &out}
	dw := &drainWatch{o: o, clock: clock, fitWidth: 60}
	clock.stamp(time.Now())
	warning := "  - [pdb-sequential] PDB shop/web allows 1 disruption(s) now and 2 of its Ready pods are on this node"
	if _, err := dw.fitted(stampWidth).Write([]byte(warning + "\n")); err != nil {
		t.Fatal(err)
	}
	clock.unstamp()
	if _, err := dw.fitted(0).Write([]byte(warning + "\n")); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	stamp := regexp.MustCompile(`^\[\+ +0\.\d{3} s\] `)
	var stamped, after []string
	for _, l := range lines {
		if utf8.RuneCountInString(l) > 60 {
			t.Errorf("line %q is wider than 60 columns", l)
		}
		if loc := stamp.FindStringIndex(l); loc != nil {
			stamped = append(stamped, l[loc[1]:])
		} else {
			after = append(after, l)
		}
	}
	if len(stamped) < 2 || !strings.HasPrefix(stamped[0], "  - [pdb-sequential]") || !strings.HasPrefix(stamped[1], "    ") {
		t.Errorf("stamped lines %q: want the warning on 2 or more, each stamped, its continuation indented under its text", stamped)
	}
	if len(after) != 2 || !strings.HasPrefix(after[0], "  - [pdb-sequential]") {
		t.Errorf("lines after the stamps %q: want the warning on 2, fitted to 60 columns", after)
	}
}
