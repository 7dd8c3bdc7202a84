package table

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// benchFindings are the rows of a 1,000-pod cluster's audit (about 650
// findings; issue 17's benchmark), grouped by object as the report groups
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

// tabwriterPlain draws the Plain layout with text/tabwriter, the
// alternative to renderPlain (kubectl's printers use it): each cell's
// lines on lines of their own, every line given all its cells so the
// columns stay one block, a blank before the first column, two between
// columns. tabwriter counts runes, not display columns.
func tabwriterPlain(header []string, rows [][]string) string {
	var b bytes.Buffer
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, r := range append([][]string{header}, rows...) {
		cells := make([][]string, len(header))
		height := 1
		for c := range header {
			if c < len(r) {
				cells[c] = strings.Split(r[c], "\n")
			}
			height = max(height, len(cells[c]))
		}
		for i := range height {
			w.Write([]byte{' '})
			for c := range header {
				if i < len(cells[c]) {
					w.Write([]byte(cells[c][i]))
				}
				if c < len(header)-1 {
					w.Write([]byte{'\t'})
				}
			}
			w.Write([]byte{'\n'})
		}
	}
	w.Flush()
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// tablewriterPlainBench is tablewriterPlain without a *testing.T.
func tablewriterPlainBench(header []string, rows [][]string) string {
	var b bytes.Buffer
	tbl := tablewriter.NewTable(&b, append(cellOptions(),
		tablewriter.WithTrimSpace(tw.Off),
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders:  tw.BorderNone,
			Symbols:  tw.NewSymbols(tw.StyleNone),
			Settings: tw.Settings{Separators: tw.Separators{BetweenRows: tw.Off, BetweenColumns: tw.Off}, Lines: tw.Lines{ShowHeaderLine: tw.Off}},
		})))...)
	tbl.Header(header)
	_ = tbl.Bulk(rows)
	_ = tbl.Render()
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

var benchSink string

func BenchmarkPlain(b *testing.B) {
	header, rows := benchFindings()
	for _, v := range []struct {
		name string
		draw func([]string, [][]string) string
	}{
		{"renderPlain", renderPlain},
		{"tabwriter", tabwriterPlain},
		{"tablewriter", tablewriterPlainBench},
	} {
		b.Run(v.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				benchSink = v.draw(header, rows)
			}
		})
	}
}
