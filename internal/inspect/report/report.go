// Package report prints an inspect.Report: a table for people, JSON, YAML
// and SARIF 2.1.0 for machines and code-scanning UIs.
package report

import (
	"fmt"
	"io"

	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// Formats lists the values of -o.
var Formats = []string{"table", "json", "yaml", "sarif"}

// Write prints r in format ("" or "table", "json", "yaml", "sarif").
// color enables ANSI colours in the table, whose MESSAGE column wraps to
// width (TableWidth). Text from manifests or the
// cluster is escaped in every format (pkg/termsafe): no control character
// or bidirectional override is written raw, and none makes it fail.
func Write(w io.Writer, r *inspect.Report, format string, color bool, width int) error {
	return encode(w, format, r, func() any { return SARIF(r) }, func() error { return TableWidth(w, r, color, width) })
}

// encode prints doc as JSON or YAML, sarif() as SARIF, or calls table.
func encode(w io.Writer, format string, doc any, sarif func() any, table func() error) error {
	switch format {
	case "", "table":
		return table()
	case "json":
		return termsafe.WriteJSON(w, doc)
	case "yaml":
		b, err := termsafe.MarshalYAML(doc)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	case "sarif":
		return termsafe.WriteJSON(w, sarif())
	}
	return fmt.Errorf("unknown output format %q", format)
}
