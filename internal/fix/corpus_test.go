package fix

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/inspect/load"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// corpusCopy copies ../shared/corpus (beside the repository) into a
// temporary directory, or skips the test when there is no corpus.
func corpusCopy(t *testing.T) string {
	t.Helper()
	src := filepath.Join("..", "..", "..", "shared", "corpus")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("no real-world corpus at %s: %v", src, err)
	}
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// fixDir audits every manifest under dir, applies the plan to the files
// and returns the edits made.
func fixDir(t *testing.T, dir string) ([]*FileEdit, *inspect.Report) {
	t.Helper()
	inv := &inspect.Inventory{}
	if err := load.Manifests(load.ManifestOptions{Filenames: []string{dir}, Recursive: true}, inv); err != nil {
		t.Fatal(err)
	}
	r := inspect.Audit(inv, inspect.DefaultOptions())
	p := NewPlan(inv, r.Findings, Options{PreStopFloorSeconds: 5})
	var out []*FileEdit
	for _, f := range p.Files() {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		e, err := Edit(f, data, p, "")
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if e.Changed() {
			if err := os.WriteFile(f, e.After, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, e)
	}
	return out, r
}

// TestCorpusProperties fixes a copy of every real-world manifest of the
// corpus and checks: an audit afterwards reports none of the fixed
// findings, a second fix changes nothing, and no original line outside
// the changed fields was removed or altered. (The e2e test in
// cmd/kubectl-graceful also applies every changed document to the local
// cluster with --dry-run=server.)
func TestCorpusProperties(t *testing.T) {
	dir := corpusCopy(t)
	edits, _ := fixDir(t, dir)
	fixedKeys := map[string]bool{}
	changed := 0
	for _, e := range edits {
		for _, d := range e.Refused {
			t.Errorf("%s: %s refused: %s", e.File, d.Object, d.Text)
		}
		for _, d := range e.Done {
			for _, f := range d.Fixes {
				fixedKeys[findingKey(f)] = true
			}
		}
		if e.Changed() {
			changed++
			assertOnlyFieldsChanged(t, e)
			assertDiffAsWhole(t, e)
		}
	}
	if changed == 0 || len(fixedKeys) == 0 {
		t.Fatalf("the corpus needed no fix at all: the test proves nothing")
	}
	again, r := fixDir(t, dir)
	for _, f := range r.Findings {
		if fixedKeys[findingKey(f)] {
			t.Errorf("still reported after --fix: %s", findingKey(f))
		}
	}
	for _, e := range again {
		if e.Changed() {
			d, _ := e.Diff()
			t.Errorf("a second fix changed %s again:\n%s", e.File, d)
		}
	}
	t.Logf("%d files changed, %d findings fixed", changed, len(fixedKeys))
}
