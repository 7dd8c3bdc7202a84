package render

import (
	"io"

	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

// jsonDocument is the -o json document: one entry per node drained or
// tried, in order.
type jsonDocument struct {
	Nodes []*drain.NodeResult `json:"nodes"`
}

// JSON writes the results of every node as one indented JSON document
// (preflight, per-pod results and durations). It returns the write error.
func JSON(w io.Writer, results []*drain.NodeResult) error {
	enc := termsafe.NewJSONEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(jsonDocument{Nodes: results})
}
