package render

import (
	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"

	"io"

	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
)

// WorkloadLinePrinter prints each change of a rollout as a line as it
// happens.
type WorkloadLinePrinter struct{ W io.Writer }

// PodEvent implements rollout.Printer.
func (p WorkloadLinePrinter) PodEvent(r *rollout.Rollout, tl *timeline.Timeline, e timeline.Event) {
	_ = WriteWorkloadLine(p.W, r, tl, e)
}

// Capacity implements rollout.Printer.
func (p WorkloadLinePrinter) Capacity(r *rollout.Rollout, service string, s rollout.CapacitySample) {
	_ = WriteCapacityLine(p.W, r, service, s)
}

// Status implements rollout.Printer.
func (p WorkloadLinePrinter) Status(r *rollout.Rollout, s rollout.StatusChange) {
	_ = WriteStatusLine(p.W, r, s)
}

// timeline.Gap implements rollout.Printer.
func (p WorkloadLinePrinter) Gap(r *rollout.Rollout, g timeline.Gap) {
	_ = WriteGapLine(p.W, clock(r), g)
}

// Note implements rollout.Printer.
func (p WorkloadLinePrinter) Note(_ *rollout.Rollout, msg string) {
	_, _ = io.WriteString(p.W, "note: "+termsafe.Escape(msg)+"\n")
}

// WorkloadJSONPrinter prints one JSON object per line as things happen.
type WorkloadJSONPrinter struct{ W io.Writer }

// PodEvent implements rollout.Printer.
func (p WorkloadJSONPrinter) PodEvent(r *rollout.Rollout, tl *timeline.Timeline, e timeline.Event) {
	_ = WriteWorkloadJSONEvent(p.W, r, tl, e)
}

// Capacity implements rollout.Printer.
func (p WorkloadJSONPrinter) Capacity(r *rollout.Rollout, service string, s rollout.CapacitySample) {
	_ = WriteWorkloadJSONCapacity(p.W, r, service, s)
}

// Status implements rollout.Printer.
func (p WorkloadJSONPrinter) Status(r *rollout.Rollout, s rollout.StatusChange) {
	_ = WriteWorkloadJSONStatus(p.W, r, s)
}

// timeline.Gap implements rollout.Printer.
func (p WorkloadJSONPrinter) Gap(r *rollout.Rollout, g timeline.Gap) {
	_ = WriteWorkloadJSONGap(p.W, r, g)
}

// Note implements rollout.Printer.
func (p WorkloadJSONPrinter) Note(_ *rollout.Rollout, msg string) {
	_ = WriteWorkloadJSONNote(p.W, msg)
}
