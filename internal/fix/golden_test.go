package fix

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden")

// TestGolden fixes each testdata/golden/NAME.yaml and compares the result
// byte for byte with NAME.yaml.fixed, and what was done, refused and left
// manual with NAME.yaml.report. Then it checks that the fixed findings
// are gone, that a second fix changes nothing, and that no original line
// outside the changed fields was removed or altered.
func TestGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "golden", "*.yaml"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			fx := fixText(t, string(src), inspect.Version{}, inspect.DefaultOptions(), Options{PreStopFloorSeconds: 5})
			compareGolden(t, in+".fixed", string(fx.edit.After))
			compareGolden(t, in+".report", report(fx))
			assertFixedGone(t, fx)
			again := fixText(t, string(fx.edit.After), inspect.Version{}, inspect.DefaultOptions(), Options{PreStopFloorSeconds: 5})
			if again.edit.Changed() {
				d, _ := again.edit.Diff()
				t.Errorf("a second fix changed the file again:\n%s", d)
			}
			assertOnlyFieldsChanged(t, fx.edit)
			assertDiffAsWhole(t, fx.edit)
		})
	}
}

func report(fx fixed) string {
	var b strings.Builder
	for _, d := range fx.edit.Done {
		fmt.Fprintf(&b, "fixed   %s: %s\n", d.Object, d.Text)
	}
	for _, d := range fx.edit.Refused {
		fmt.Fprintf(&b, "refused %s: %s\n", d.Object, d.Text)
	}
	for _, m := range fx.plan.Manual {
		fmt.Fprintf(&b, "manual  %s %s %s\n", m.Finding.Object, m.Finding.Check, m.Reason)
	}
	return b.String()
}

func compareGolden(t *testing.T, file, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/fix -run TestGolden -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (-want +got):\n%s", file, lineDiff(string(want), got))
	}
}

func lineDiff(a, b string) string {
	e := &FileEdit{File: "x", Before: []byte(a), After: []byte(b)}
	d, _ := e.Diff()
	return d
}
