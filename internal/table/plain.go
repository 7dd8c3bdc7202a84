package table

import (
	"strings"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
)

// renderPlain draws the Plain style as tablewriter draws it with the
// options render gives it (no borders, no separators, one blank of padding
// on each side of every cell, cells left-aligned, a cell's lines on lines
// of their own), every line trimmed of trailing blanks. It exists because
// tablewriter spends about 8 µs a row on it (5 ms for the 650 findings of
// a 1,000-pod cluster, 8% of the whole audit's CPU there, issue 17's
// benchmark), while only padding is needed; widths are twwidth's, the
// display width tablewriter itself uses (ANSI colours zero-wide, East
// Asian wide characters two columns). TestPlainMatchesTablewriter holds
// it to tablewriter's output byte for byte for the cells the commands
// give it: escaped text (termsafe: no tabs or other control bytes), rows
// no longer than the header, wrapped lines that are never empty.
// tablewriter would differ on raw tabs (it expands them), on a line of a
// wrapped row whose cells are all empty (it drops it) and on a row longer
// than the header (it widens the table).
func renderPlain(header []string, rows [][]string) string {
	widths := make([]int, len(header))
	for c := range header {
		widths[c] = columnWidth(header, rows, c)
	}
	var b strings.Builder
	writePlainRow(&b, header, widths)
	for _, r := range rows {
		writePlainRow(&b, r, widths)
	}
	return b.String()
}

// writePlainRow writes one row: as many lines as its tallest cell has.
func writePlainRow(b *strings.Builder, row []string, widths []int) {
	cells := make([][]string, len(widths))
	height := 1
	for c := range widths {
		if c < len(row) {
			cells[c] = strings.Split(row[c], "\n")
		}
		height = max(height, len(cells[c]))
	}
	for i := range height {
		var line strings.Builder
		for c, w := range widths {
			text := ""
			if i < len(cells[c]) {
				text = cells[c][i]
			}
			line.WriteByte(' ')
			line.WriteString(text)
			line.WriteString(strings.Repeat(" ", max(w-twwidth.Width(text), 0)+1))
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
}
