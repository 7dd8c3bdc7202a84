package timeline

import (
	"io"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/termsafe"
)

// WorkloadLinePrinter prints each change of a rollout as a line as it
// happens.
type WorkloadLinePrinter struct{ W io.Writer }

// PodEvent implements WorkloadPrinter.
func (p WorkloadLinePrinter) PodEvent(r *Rollout, tl *Timeline, e Event) {
	_ = WriteWorkloadLine(p.W, r, tl, e)
}

// Capacity implements WorkloadPrinter.
func (p WorkloadLinePrinter) Capacity(r *Rollout, service string, s CapacitySample) {
	_ = WriteCapacityLine(p.W, r, service, s)
}

// Status implements WorkloadPrinter.
func (p WorkloadLinePrinter) Status(r *Rollout, s StatusChange) { _ = WriteStatusLine(p.W, r, s) }

// Gap implements WorkloadPrinter.
func (p WorkloadLinePrinter) Gap(r *Rollout, g Gap) { _ = WriteGapLine(p.W, clock(r), g) }

// Note implements WorkloadPrinter.
func (p WorkloadLinePrinter) Note(_ *Rollout, msg string) {
	_, _ = io.WriteString(p.W, "note: "+termsafe.Escape(msg)+"\n")
}

// WorkloadJSONPrinter prints one JSON object per line as things happen.
type WorkloadJSONPrinter struct{ W io.Writer }

// PodEvent implements WorkloadPrinter.
func (p WorkloadJSONPrinter) PodEvent(r *Rollout, tl *Timeline, e Event) {
	_ = WriteWorkloadJSONEvent(p.W, r, tl, e)
}

// Capacity implements WorkloadPrinter.
func (p WorkloadJSONPrinter) Capacity(r *Rollout, service string, s CapacitySample) {
	_ = WriteWorkloadJSONCapacity(p.W, r, service, s)
}

// Status implements WorkloadPrinter.
func (p WorkloadJSONPrinter) Status(r *Rollout, s StatusChange) {
	_ = WriteWorkloadJSONStatus(p.W, r, s)
}

// Gap implements WorkloadPrinter.
func (p WorkloadJSONPrinter) Gap(r *Rollout, g Gap) { _ = WriteWorkloadJSONGap(p.W, r, g) }

// Note implements WorkloadPrinter.
func (p WorkloadJSONPrinter) Note(_ *Rollout, msg string) { _ = WriteWorkloadJSONNote(p.W, msg) }
