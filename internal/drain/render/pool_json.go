package render

import (
	"io"

	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

// PoolJSON writes the result of a pool drain as one indented JSON
// document: the pool's preflight, each node's result and the evictions per
// pod. It returns the write error.
func PoolJSON(w io.Writer, res *drain.PoolResult) error {
	enc := termsafe.NewJSONEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}
