// Package table draws the tables people read (the audit's findings, the
// drain's preflight and summary) with tablewriter, fitted to the width
// the command gives: on a terminal the last column, where the long text is (a
// finding's message, an eviction's cause), wraps so that no line is wider
// than the terminal; elsewhere nothing wraps. No line ends in blanks. It
// never looks at the terminal itself.
package table

import (
	"bytes"
	"io"
	"slices"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Style is how a table is drawn.
type Style int

const (
	// Boxed draws borders and lines between columns (the drain's tables).
	Boxed Style = iota
	// Plain draws columns separated by blanks only (the audit's findings).
	Plain
)

// Floors of the columns' widths, in columns: a wrapped message or cause
// narrower than minWrapWidth is harder to read than a wrapped name, and no
// column gets narrower than minColumnWidth.
const (
	minWrapWidth   = 16
	minColumnWidth = 6
)

// Write draws header and rows to w in style. width is the terminal's width
// in columns, 0 when w is not a terminal: then no cell is wrapped. On a
// terminal the last column wraps first, down to minWrapWidth, then the
// widest of the others, until the table fits (or no column can narrow any
// more). Cells are text already escaped for the terminal (ANSI colours are
// measured as zero-width). It returns the first write error.
func Write(w io.Writer, header []string, rows [][]string, style Style, width int) error {
	out, err := render(header, rows, style)
	for width > 0 && err == nil {
		over := widest(out) - width
		limits := narrower(header, rows, over)
		if over <= 0 || limits == nil {
			break
		}
		for col, limit := range limits {
			header, rows = wrapColumn(header, rows, col, limit)
		}
		out, err = render(header, rows, style)
	}
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, out)
	return err
}

// narrower returns the new widths of the columns to wrap to take over
// columns off the table, or nil when none can narrow. The first column (a
// namespace/kind/name) narrows first, down to its longest part between
// slashes, so that the message or cause keeps the room to be read. Then
// the widest column narrows first, one column at a time, so that those
// narrowed end up alike: first among the last column (the message or
// cause) and the first, then, if the table is still too wide, among all
// of them; none
// below its longest word first (a header wraps between its words, a name
// stays whole), then below that too, in the same order (a word is broken
// only on a terminal too narrow for the table otherwise).
func narrower(header []string, rows [][]string, over int) map[int]int {
	widths := make([]int, len(header))
	floors := make([]int, len(header))
	for c := range header {
		widths[c], floors[c] = widest(strings.Join(column(header, rows, c), "\n")), minColumnWidth
	}
	if len(header) == 0 {
		return nil
	}
	last := len(header) - 1
	floors[last] = minWrapWidth
	all := make([]int, len(header))
	words := make([]int, len(header))
	for c := range all {
		all[c], words[c] = c, max(floors[c], longestWord(header, rows, c, false))
	}
	names := slices.Clone(words)
	names[0] = max(floors[0], longestWord(header, rows, 0, true))
	limits := map[int]int{}
	for _, pass := range []struct {
		floors, cols []int
	}{{names, []int{0}}, {words, []int{last, 0}}, {words, all}, {floors, []int{last, 0}}, {floors, all}} {
		over = waterFill(widths, pass.floors, pass.cols, over, limits)
	}
	if len(limits) == 0 {
		return nil
	}
	return limits
}

// waterFill narrows the widest of cols, one column at a time, none below
// its floor, until over columns are taken off or none can narrow; it
// records each new width in limits and returns what is left of over.
func waterFill(widths, floors, cols []int, over int, limits map[int]int) int {
	for ; over > 0; over-- {
		col := -1
		for _, c := range cols {
			if widths[c] > floors[c] && (col < 0 || widths[c] > widths[col]) {
				col = c
			}
		}
		if col < 0 {
			return over
		}
		widths[col]--
		limits[col] = widths[col]
	}
	return 0
}

// render draws the table with tablewriter; every line is trimmed of
// trailing blanks. Plain was drawn by a hand-written copy of this layout
// until the benchmark of bench/RESULTS.md (2026-12-01): the copy saved
// 4-8 % of the CPU of a 3,250-finding `audit -f` (medians of two batches
// of 10 runs), under the 10 % a special case must pay. text/tabwriter, kubectl's, is not used: it counts
// runes, not display columns, so a coloured SEVERITY column or an East
// Asian name would misalign the table.
func render(header []string, rows [][]string, style Style) (string, error) {
	var b bytes.Buffer
	t := tablewriter.NewTable(&b, append(cellOptions(), styleOptions(style)...)...)
	t.Header(header)
	if err := t.Bulk(rows); err != nil {
		return "", err
	}
	if err := t.Render(); err != nil {
		return "", err
	}
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n"), nil
}

// cellOptions are how every table lays out its cells: as given (no
// upper-casing, no wrapping: Write wraps itself), left-aligned.
func cellOptions() []tablewriter.Option {
	return []tablewriter.Option{
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
	}
}

// styleOptions are the style's borders and separators: tablewriter's
// default box for Boxed; for Plain none, only blanks between the columns
// (one of padding on each side of every cell).
func styleOptions(style Style) []tablewriter.Option {
	if style != Plain {
		return nil
	}
	return []tablewriter.Option{
		tablewriter.WithTrimSpace(tw.Off),
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Symbols: tw.NewSymbols(tw.StyleNone),
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenRows: tw.Off, BetweenColumns: tw.Off},
				Lines:      tw.Lines{ShowHeaderLine: tw.Off},
			},
		})),
	}
}

// Fits reports whether every line of s (text drawn on a terminal: a table,
// a paragraph) is at most width display columns wide, wide runes counting
// two and ANSI colours none, as Write measures its tables.
func Fits(s string, width int) bool { return widest(s) <= width }

// widest returns the display width of the longest line of s.
func widest(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		n = max(n, twwidth.Width(l))
	}
	return n
}

// longestWord returns the display width of the widest word (between
// blanks) of column col, header included; with paths, each word is split
// after its slashes too, where cut breaks a name.
func longestWord(header []string, rows [][]string, col int, paths bool) int {
	n := 0
	for _, c := range column(header, rows, col) {
		if paths {
			c = strings.ReplaceAll(c, "/", "/ ")
		}
		for _, w := range strings.Fields(c) {
			n = max(n, twwidth.Width(w))
		}
	}
	return n
}

// column returns the header and the cells of column col, of the rows that
// have one.
func column(header []string, rows [][]string, col int) []string {
	cells := []string{header[col]}
	for _, r := range rows {
		if col < len(r) {
			cells = append(cells, r[col])
		}
	}
	return cells
}

// wrapColumn returns copies of header and rows whose column col is
// wrapped to limit.
func wrapColumn(header []string, rows [][]string, col, limit int) ([]string, [][]string) {
	h := append([]string(nil), header...)
	h[col] = wrap(h[col], limit)
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = append([]string(nil), r...)
		if col < len(r) {
			out[i][col] = wrap(r[col], limit)
		}
	}
	return h, out
}
