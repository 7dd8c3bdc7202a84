// Package report prints an inspect.Report: a table for people, JSON, YAML
// and SARIF 2.1.0 for machines and code-scanning UIs.
package report

import (
	"fmt"
	"io"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/termsafe"
)

// Formats lists the values of -o.
var Formats = []string{"table", "json", "yaml", "sarif"}

// Write prints r in format ("" or "table", "json", "yaml", "sarif").
// color enables ANSI colours in the table. Text from manifests or the
// cluster is escaped in every format (pkg/termsafe): no control character
// or bidirectional override is written raw, and none makes it fail.
func Write(w io.Writer, r *inspect.Report, format string, color bool) error {
	switch format {
	case "", "table":
		return Table(w, r, color)
	case "json":
		enc := termsafe.NewJSONEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case "yaml":
		b, err := termsafe.MarshalYAML(r)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	case "sarif":
		enc := termsafe.NewJSONEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(SARIF(r))
	}
	return fmt.Errorf("unknown output format %q", format)
}
