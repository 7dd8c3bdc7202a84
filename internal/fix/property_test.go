package fix

import (
	"strings"
	"testing"

	"github.com/pmezard/go-difflib/difflib"
)

// changedFields are the keys whose lines a fix may rewrite or remove.
var changedFields = []string{"terminationGracePeriodSeconds:", "maxUnavailable:", "minAvailable:",
	"unhealthyPodEvictionPolicy:", "lifecycle:", "preStop:", "exec:", "sleep:", "seconds:", "command:"}

// assertOnlyFieldsChanged checks that every original line the edit
// removed or altered belongs to a changed field: each run of removed lines
// starts with one of changedFields, and the rest of the run is nested
// under it (its value's lines, comments included). Every other original
// line must still be there, in order (inserted lines are free).
func assertOnlyFieldsChanged(t *testing.T, e *FileEdit) {
	t.Helper()
	a := difflib.SplitLines(string(e.Before))
	b := difflib.SplitLines(string(e.After))
	for _, op := range difflib.NewMatcher(a, b).GetOpCodes() {
		if op.Tag != 'r' && op.Tag != 'd' {
			continue
		}
		keyIndent := -1
		for i, l := range a[op.I1:op.I2] {
			l = strings.TrimRight(l, "\r\n")
			ind, rest := indentOf(l)
			if keyIndent >= 0 && (ind > keyIndent || rest == "") {
				continue
			}
			if op.Tag == 'r' && op.J1+i < op.J2 && flowRewrite(l, strings.TrimRight(b[op.J1+i], "\r\n")) {
				keyIndent = ind // its continuation lines belong to it
				continue
			}
			if !isChangedField(strings.TrimPrefix(rest, "- ")) {
				t.Errorf("%s: original line %q was removed or altered, and it is not part of a changed field", e.File, l)
				return
			}
			keyIndent = ind
		}
	}
}

func isChangedField(s string) bool {
	for _, f := range changedFields {
		if strings.HasPrefix(s, f) {
			return true
		}
	}
	return false
}

// assertDiffAsWhole checks that Diff, which hands difflib only windows
// around the edits, gives the same text as difflib over the whole files.
func assertDiffAsWhole(t *testing.T, e *FileEdit) {
	t.Helper()
	got, err := e.Diff()
	if err != nil {
		t.Fatal(err)
	}
	whole := *e
	whole.splices = nil
	want, err := whole.Diff()
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("%s: windowed diff differs from the whole-file diff\nwindowed:\n%s\nwhole:\n%s", e.File, got, want)
	}
}

// flowRewrite reports whether new is old's flow collection rewritten:
// the same text up to the collection's opening bracket, and a changed
// field in the new line (an edit inside a flow collection rewrites the
// entry or list item holding it).
func flowRewrite(old, new string) bool {
	i := strings.IndexAny(old, "{[")
	if i < 0 || !strings.HasPrefix(new, old[:i+1]) {
		return false
	}
	for _, f := range changedFields {
		if strings.Contains(new[i:], f) {
			return true
		}
	}
	return false
}
