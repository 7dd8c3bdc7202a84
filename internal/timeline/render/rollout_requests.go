package render

import (
	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// Requests implements rollout.RequestPrinter.
func (p WorkloadLinePrinter) Requests(r *rollout.Rollout, l timeline.RequestLine) {
	_ = WriteRequestsLine(p.W, clock(r), l)
}

// Requests implements rollout.RequestPrinter.
func (p WorkloadJSONPrinter) Requests(r *rollout.Rollout, l timeline.RequestLine) {
	JSONPrinter(p).Requests(clock(r), l)
}
