package render

import (
	"fmt"
	"io"

	"github.com/kubectl-graceful/kubectl-graceful/internal/table"
	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
)

// escape makes text read from the cluster safe for the terminal.
func escape(s string) string { return termsafe.Escape(s) }

// drawTable draws rows under header, its last column wrapped to fit width
// (0: not a terminal, no wrapping).
func drawTable(w io.Writer, header []string, rows [][]string, width int) {
	_ = table.Write(w, header, rows, table.Boxed, width)
}

// section writes title (none when "") and one row an item under header,
// as drawTable does; nothing at all when there are no items.
func section[T any](w io.Writer, title string, items []T, header []string, width int, row func(T) []string) {
	if len(items) == 0 {
		return
	}
	if title != "" {
		fmt.Fprintln(w, title)
	}
	rows := make([][]string, len(items))
	for i, it := range items {
		rows[i] = row(it)
	}
	drawTable(w, header, rows, width)
}
