package load

import (
	"os"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/fix"
)

// BenchmarkManifestFixDiff2000 is `audit -f FILE --fix --diff` over the
// input of BenchmarkManifestAudit2000: read, audit, plan, edit every
// document that needs it and write the diff. The target is within 2x the
// audit alone.
func BenchmarkManifestFixDiff2000(b *testing.B) {
	file := manifest2000(b)
	b.ReportAllocs()
	for b.Loop() {
		inv, r := audit2000(b, file)
		p := fix.NewPlan(inv, r.Findings, fix.Options{PreStopFloorSeconds: 5})
		data, err := os.ReadFile(file)
		if err != nil {
			b.Fatal(err)
		}
		e, err := fix.Edit(file, data, p, "")
		if err != nil {
			b.Fatal(err)
		}
		d, err := e.Diff()
		if err != nil || d == "" || len(e.Done) < 1000 || len(e.Refused) > 0 {
			b.Fatalf("diff of %d bytes, %d objects fixed, %d refused, err %v", len(d), len(e.Done), len(e.Refused), err)
		}
	}
}
