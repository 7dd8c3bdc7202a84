package render

import (
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
