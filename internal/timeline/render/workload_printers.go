package render

import (
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"

	"io"

	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
)

// WorkloadLinePrinter prints each change of a rollout as a line as it
// happens.
type WorkloadLinePrinter struct{ W io.Writer }

// PodEvent implements timeline.WorkloadPrinter.
func (p WorkloadLinePrinter) PodEvent(r *timeline.Rollout, tl *timeline.Timeline, e timeline.Event) {
	_ = WriteWorkloadLine(p.W, r, tl, e)
}

// Capacity implements timeline.WorkloadPrinter.
func (p WorkloadLinePrinter) Capacity(r *timeline.Rollout, service string, s timeline.CapacitySample) {
	_ = WriteCapacityLine(p.W, r, service, s)
}

// Status implements timeline.WorkloadPrinter.
func (p WorkloadLinePrinter) Status(r *timeline.Rollout, s timeline.StatusChange) {
	_ = WriteStatusLine(p.W, r, s)
}

// timeline.Gap implements timeline.WorkloadPrinter.
func (p WorkloadLinePrinter) Gap(r *timeline.Rollout, g timeline.Gap) {
	_ = WriteGapLine(p.W, clock(r), g)
}

// Note implements timeline.WorkloadPrinter.
func (p WorkloadLinePrinter) Note(_ *timeline.Rollout, msg string) {
	_, _ = io.WriteString(p.W, "note: "+termsafe.Escape(msg)+"\n")
}

// WorkloadJSONPrinter prints one JSON object per line as things happen.
type WorkloadJSONPrinter struct{ W io.Writer }

// PodEvent implements timeline.WorkloadPrinter.
func (p WorkloadJSONPrinter) PodEvent(r *timeline.Rollout, tl *timeline.Timeline, e timeline.Event) {
	_ = WriteWorkloadJSONEvent(p.W, r, tl, e)
}

// Capacity implements timeline.WorkloadPrinter.
func (p WorkloadJSONPrinter) Capacity(r *timeline.Rollout, service string, s timeline.CapacitySample) {
	_ = WriteWorkloadJSONCapacity(p.W, r, service, s)
}

// Status implements timeline.WorkloadPrinter.
func (p WorkloadJSONPrinter) Status(r *timeline.Rollout, s timeline.StatusChange) {
	_ = WriteWorkloadJSONStatus(p.W, r, s)
}

// timeline.Gap implements timeline.WorkloadPrinter.
func (p WorkloadJSONPrinter) Gap(r *timeline.Rollout, g timeline.Gap) {
	_ = WriteWorkloadJSONGap(p.W, r, g)
}

// Note implements timeline.WorkloadPrinter.
func (p WorkloadJSONPrinter) Note(_ *timeline.Rollout, msg string) {
	_ = WriteWorkloadJSONNote(p.W, msg)
}
