package fix

import (
	"path/filepath"

	"github.com/pmezard/go-difflib/difflib"
)

// Diff returns the unified diff (3 lines of context; for relative paths
// a/ and b/ prefixes as git writes them, so `git apply` takes it) from e.Before to e.After, or ""
// when the file did not change.
func (e *FileEdit) Diff() (string, error) {
	if !e.Changed() {
		return "", nil
	}
	from, to := "a/"+e.File, "b/"+e.File
	if filepath.IsAbs(e.File) || e.File == "STDIN" {
		from, to = e.File, e.File
	}
	return difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A:        difflib.SplitLines(string(e.Before)),
		B:        difflib.SplitLines(string(e.After)),
		FromFile: from,
		ToFile:   to,
		Context:  3,
	})
}
