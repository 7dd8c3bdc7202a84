package table

import (
	"fmt"
	"testing"
)

// benchFindings are the rows of a 1,000-pod cluster's audit (about 650
// findings; the audit benchmark's live scale), grouped by object as the report groups
// them, with the severities coloured as on a terminal.
func benchFindings() ([]string, [][]string) {
	header := []string{"OBJECT", "CONTAINER", "SEVERITY", "CHECK", "MESSAGE"}
	sev := []string{"\x1b[33mwarning\x1b[0m", "\x1b[31merror\x1b[0m", "\x1b[36minfo\x1b[0m"}
	rows := make([][]string, 0, 650)
	for i := range 650 {
		obj := ""
		if i%3 == 0 {
			obj = fmt.Sprintf("team-%d/Deployment/service-%d", i%40, i)
		}
		rows = append(rows, []string{obj, "app", sev[i%3], "missing-prestop",
			fmt.Sprintf("behind Service service-%d with no preStop hook: SIGTERM may reach it before the endpoints drop it", i)})
	}
	return header, rows
}

var benchSink string

// BenchmarkPlain is the cost of a finding table (bench/RESULTS.md,
// 2026-12-01, holds it beside the renderers measured against it).
func BenchmarkPlain(b *testing.B) {
	header, rows := benchFindings()
	b.ReportAllocs()
	for b.Loop() {
		out, err := render(header, rows, Plain)
		if err != nil {
			b.Fatal(err)
		}
		benchSink = out
	}
}
