package apisurface

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"testing"
)

// ceiling is the most exported identifiers pkg/ may have (ARCHITECTURE.md,
// "Layout"): a new one takes the place of one that goes. The enums' values
// (172 constants: the ingress track and its three kinds added 4) and the types exported fields and signatures name (116)
// are most of it. The proxy's access log (watch --probe-access-log) added
// 3 that no other could make room for: probe.ProxyRecord and
// timeline.ProxyCounts, the data a program reads, and
// timeline.AddTerminated, the one rule the pod and rollout verdicts share.
const ceiling = 392

// TestPkgSurface fails when pkg/ grows past the ceiling or an exported
// field or signature there uses a type a program cannot name.
func TestPkgSurface(t *testing.T) {
	s, err := Measure(filepath.Join("..", "..", "pkg"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d exported identifiers under pkg/: %v", s.Count, s.PerPackage)
	if s.Count > ceiling {
		t.Errorf("pkg/ exports %d identifiers, more than %d: unexport what no program needs", s.Count, ceiling)
	}
	for _, u := range s.Unnameable {
		t.Errorf("a program cannot name the type of %s", u)
	}
	for _, h := range s.HiddenValues {
		t.Errorf("a program cannot name the value %s: export it with its type's other values", h)
	}
}

// The count and the findings on a file that has each kind of declaration.
func TestMeasureFile(t *testing.T) {
	const src = `package p
import (
	"time"
	"example.com/m/internal/probe"
)
type Shown struct {
	At     time.Time
	Hidden hidden
	Req    []probe.Request
	Params map[string]func(x int) (y bool)
	note   hidden
	embedded
}
type hidden struct{ A int }
func (hidden) Exported() {}
func (hidden) unexported() {}
func (*Shown) Uses(h hidden) error { return nil }
func New[T any](v T) *Shown { return nil }
const A, b = 1, 2
var V hidden
type Source interface{ Next() probe.Request; skip() hidden }
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	n, bad := measureFile(f)
	// Shown, hidden.Exported, Shown.Uses, New, A, V, Source.
	if n != 7 {
		t.Errorf("count %d, want 7", n)
	}
	want := []string{"Shown.Hidden: hidden", "Shown.Req: probe.Request", "Shown: embedded",
		"Shown.Uses: hidden", "V: hidden", "Source.Next: probe.Request"}
	if !reflect.DeepEqual(bad, want) {
		t.Errorf("unnameable %q, want %q", bad, want)
	}
}

// An enum's hidden values are found however they are declared: in a
// group that repeats the type, or typed by another pkg/ package's type;
// untyped, internal and standard-library typed constants are not enums
// of pkg/.
func TestHiddenValues(t *testing.T) {
	const src = `package p
import (
	"time"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)
type K int
type k string
const (
	A K = iota
	b
	C
)
const (
	plain = 1
	wait time.Duration = 1
	hidden k = "h"
	t0 timeline.T0Source = "x"
	_ K = 9
)
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"b K", "t0 timeline.T0Source"}
	if got := hiddenValues(f); !reflect.DeepEqual(got, want) {
		t.Errorf("hidden values %q, want %q", got, want)
	}
}
