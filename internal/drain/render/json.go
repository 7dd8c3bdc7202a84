package render

import (
	"io"

	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

// JSON writes a drain's result, of one node (drain.OneNode) or a pool, as
// one indented JSON document: one shape whatever the number of nodes. It
// returns the write error.
func JSON(w io.Writer, res *drain.PoolResult) error {
	enc := termsafe.NewJSONEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}
