package render

import (
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/termsafe"
)

// escape makes text read from the cluster safe for the terminal.
func escape(s string) string { return termsafe.Escape(s) }

// table renders rows under header with tablewriter, left-aligned.
func table(w io.Writer, header []string, rows [][]string) {
	t := tablewriter.NewTable(w, tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header(header)
	_ = t.Bulk(rows)
	_ = t.Render()
}
