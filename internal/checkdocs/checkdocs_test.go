package checkdocs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// TestCommittedDocsAreCurrent fails while docs/audit.md differs from what
// `make docs` makes of the catalogue: a check was added or changed without
// regenerating it.
func TestCommittedDocsAreCurrent(t *testing.T) {
	root := filepath.Join("..", "..")
	files, err := Render(root)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s is stale: run `make docs` and commit the result", name)
		}
	}
}

// Every check has a table row and a section, in both files' blocks.
func TestBlocksListEveryCheck(t *testing.T) {
	table, sections := Table("#"), Sections()
	for _, c := range inspect.Checks() {
		if !strings.Contains(table, "| [`"+c.ID+"`](#"+c.ID+") | "+string(c.Severity)+" |") {
			t.Errorf("table lacks %s", c.ID)
		}
		if !strings.Contains(sections, "### "+c.ID+"\n") || !strings.Contains(sections, c.Explanation.Why) {
			t.Errorf("sections lack %s or its explanation", c.ID)
		}
	}
}

func TestReplaceNeedsBothMarkers(t *testing.T) {
	if _, err := replace("no markers here", "x", "body"); err == nil {
		t.Error("replace accepted a file without markers")
	}
	in := "a\n<!-- BEGIN GENERATED x: edit pkg/inspect, then run make docs -->\nold\n<!-- END GENERATED x -->\nb\n"
	got, err := replace(in, "x", "new\n")
	if err != nil || got != "a\n<!-- BEGIN GENERATED x: edit pkg/inspect, then run make docs -->\nnew\n<!-- END GENERATED x -->\nb\n" {
		t.Errorf("replace = %q, %v", got, err)
	}
}
