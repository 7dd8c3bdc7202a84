package timeline

import (
	"os"
	"strings"
	"testing"
)

// TestEveryKindIsDocumented: docs/watch.md's JSON reference lists every
// event kind the recorder writes, and no kind it never writes.
func TestEveryKindIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/watch.md")
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for _, l := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(l, "| `kind` |") {
			row = l
		}
	}
	if row == "" {
		t.Fatal("docs/watch.md has no row for `kind`")
	}
	listed := strings.Count(row, "`") / 2
	for k := range kindNames {
		if !strings.Contains(row, "`"+string(k)+"`") {
			t.Errorf("docs/watch.md does not list kind %q", k)
		}
	}
	if listed-1 != len(kindNames) {
		t.Errorf("docs/watch.md lists %d kinds, the recorder has %d", listed-1, len(kindNames))
	}
}
