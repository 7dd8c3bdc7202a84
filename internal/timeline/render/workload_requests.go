package render

import "github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"

// Requests implements timeline.WorkloadRequestPrinter.
func (p WorkloadLinePrinter) Requests(r *timeline.Rollout, l timeline.RequestLine) {
	_ = WriteRequestsLine(p.W, clock(r), l)
}

// Requests implements timeline.WorkloadRequestPrinter.
func (p WorkloadJSONPrinter) Requests(r *timeline.Rollout, l timeline.RequestLine) {
	JSONPrinter(p).Requests(clock(r), l)
}
