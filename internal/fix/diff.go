package fix

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// diffContext is the number of unchanged lines around each hunk.
const diffContext = 3

// Diff returns the unified diff (3 lines of context; for relative paths
// a/ and b/ prefixes as git writes them, so `git apply` takes it) from
// e.Before to e.After, or "" when the file did not change.
//
// go-difflib compares whole files in quadratic time, which takes minutes
// on a manifest of thousands of documents; since Edit knows which lines it
// replaced, only windows around them (with the context lines) are handed
// to difflib, and its hunk headers are moved to the windows' lines.
func (e *FileEdit) Diff() (string, error) {
	if !e.Changed() {
		return "", nil
	}
	from, to := "a/"+e.File, "b/"+e.File
	if filepath.IsAbs(e.File) || e.File == stdinName {
		from, to = e.File, e.File
	}
	a, b := splitLines(string(e.Before)), splitLines(string(e.After))
	if len(e.splices) == 0 {
		return difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: a, B: b, FromFile: from, ToFile: to, Context: diffContext})
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", from, to)
	for _, w := range diffWindows(e.splices, len(a)) {
		d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: a[w.a0:w.a1], B: b[w.b0:w.b1], FromFile: from, ToFile: to, Context: diffContext})
		if err != nil {
			return "", err
		}
		for _, l := range strings.SplitAfter(d, "\n")[2:] {
			out.WriteString(shiftHunk(l, w.a0, w.b0))
		}
	}
	return out.String(), nil
}

// stdinName is the file name the manifest loader gives to stdin.
const stdinName = "STDIN"

// splitLines splits s after each line break; a last line without one
// gets one, as diff shows it.
func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		return lines[:len(lines)-1]
	}
	lines[len(lines)-1] += "\n"
	return lines
}

// window is a stretch [a0, a1) of the old lines and [b0, b1) of the new
// ones that holds some splices and their context.
type window struct{ a0, a1, b0, b1 int }

// diffWindows groups splices (in old-line coordinates, not overlapping)
// into windows that do not share context lines.
func diffWindows(ss []splice, n int) []window {
	ss = append([]splice(nil), ss...)
	sort.SliceStable(ss, func(i, j int) bool { return ss[i].start < ss[j].start })
	var out []window
	delta := 0 // new minus old lines, for the splices before the current one
	for _, s := range ss {
		a0, a1 := max(0, s.start-2*diffContext), min(n, s.end+2*diffContext)
		d := len(s.lines) - (s.end - s.start)
		if k := len(out) - 1; k >= 0 && a0 <= out[k].a1 {
			out[k].a1 = max(out[k].a1, a1)
			delta += d
			out[k].b1 = out[k].a1 + delta
			continue
		}
		w := window{a0: a0, a1: a1, b0: a0 + delta}
		delta += d
		w.b1 = a1 + delta
		out = append(out, w)
	}
	return out
}

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@`)

// shiftHunk moves a hunk header line by the window's first lines.
func shiftHunk(l string, a0, b0 int) string {
	m := hunkHeader.FindStringSubmatchIndex(l)
	if m == nil {
		return l
	}
	group := func(i int) string { return l[max(m[2*i], 0):max(m[2*i+1], 0)] }
	num := func(i int) int { n, _ := strconv.Atoi(group(i)); return n }
	return fmt.Sprintf("@@ -%d%s +%d%s @@%s", num(1)+a0, group(2), num(3)+b0, group(4), l[m[1]:])
}
