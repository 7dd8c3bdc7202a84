package load

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// auditFiles audits the manifests of files as `audit -f` does.
func auditFiles(t *testing.T, files ...string) *inspect.Report {
	t.Helper()
	inv := &inspect.Inventory{}
	if err := Manifests(ManifestOptions{Filenames: files}, inv); err != nil {
		t.Fatal(err)
	}
	return inspect.Audit(inv, inspect.DefaultOptions())
}

// fileLine is the text of line n (1-based) of file.
func fileLine(t *testing.T, file string, n int) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	if n < 1 || n > len(lines) {
		t.Fatalf("%s has no line %d", file, n)
	}
	return lines[n-1]
}

// A finding's source line is the line of the field it is about; a field
// the file lacks points at the nearest one above it (a missing readiness
// probe at its container's name).
func TestFindingLinesAreTheFields(t *testing.T) {
	file := filepath.Join("testdata", "field-lines.yaml")
	want := map[string]string{
		"prestop-too-short":       "          preStop:",
		"grace-period-long":       "      terminationGracePeriodSeconds: 900",
		"missing-readiness-probe": "      - name: web",
		"single-replica":          "  replicas: 1",
		"pdb-blocks-eviction":     "  maxUnavailable: 0",
	}
	seen := map[string]bool{}
	for _, f := range auditFiles(t, file).Findings {
		w, ok := want[f.Check]
		if !ok {
			continue
		}
		seen[f.Check] = true
		if f.Source == nil || f.Source.Line == 0 {
			t.Errorf("%s: no source line", f.Check)
			continue
		}
		if got := fileLine(t, file, f.Source.Line); got != w {
			t.Errorf("%s: line %d is %q, want %q", f.Check, f.Source.Line, got, w)
		}
	}
	for id := range want {
		if !seen[id] {
			t.Errorf("no %s finding", id)
		}
	}
}

// keyAt matches the key a YAML line starts (after a list's "- ").
var keyAt = regexp.MustCompile(`^\s*(?:-\s+)?([A-Za-z0-9_.-]+)\s*:`)

// On the real-world manifests of ../shared/corpus every finding of a
// check that names its field points at a line holding the field's own key
// or, where the file lacks the field, a key on its path (a container's
// name), never another field's or the document's first line.
func TestCorpusFindingLinesAreTheFields(t *testing.T) {
	corpus := filepath.Join("..", "..", "..", "..", "shared", "corpus")
	if _, err := os.Stat(corpus); err != nil {
		t.Skipf("corpus not found at %s: %v", corpus, err)
	}
	var files []string
	_ = filepath.WalkDir(corpus, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			files = append(files, p)
		}
		return nil
	})
	own, total := 0, 0
	for _, file := range files {
		for _, f := range auditFiles(t, file).Findings {
			c := inspect.Lookup(f.Check)
			if c == nil || c.Field == "" || f.Source == nil || f.Source.Line == 0 {
				continue
			}
			total++
			m := keyAt.FindStringSubmatch(fileLine(t, file, f.Source.Line))
			if m == nil {
				t.Errorf("%s %s: line %d of %s holds no key", f.Check, f.Object, f.Source.Line, file)
				continue
			}
			segs := strings.FieldsFunc(strings.ReplaceAll(c.Field, "containers[]", "name"), func(r rune) bool { return r == '.' || r == ',' })
			last := map[string]bool{}
			for _, alt := range strings.Split(c.Field, ",") {
				last[alt[strings.LastIndex(alt, ".")+1:]] = true
			}
			switch {
			case last[m[1]]:
				own++
			case !contains(segs, m[1]):
				t.Errorf("%s %s: line %d of %s is key %q, not on the path %s", f.Check, f.Object, f.Source.Line, file, m[1], c.Field)
			}
		}
	}
	if own == 0 {
		t.Errorf("none of %d findings at their field's own line", total)
	}
	t.Logf("%d of %d findings at their field's own line, the rest at a field above it", own, total)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
