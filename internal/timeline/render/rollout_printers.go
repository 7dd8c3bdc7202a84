package render

import (
	"io"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// RolloutLinePrinter returns the rollout.Printer of the text output: a
// WorkloadLinePrinter on out, its lines whole when wide.
func RolloutLinePrinter(out io.Writer, wide bool) rollout.Printer {
	p := WorkloadLinePrinter{W: out, Wide: wide}
	return rollout.Printer{PodEvent: p.PodEvent, Capacity: p.Capacity, Status: p.Status, Gap: p.Gap, Note: p.Note, Requests: p.Requests}
}

// RolloutJSONPrinter returns the rollout.Printer of -o json: a
// WorkloadJSONPrinter on out.
func RolloutJSONPrinter(out io.Writer) rollout.Printer {
	p := WorkloadJSONPrinter{W: out}
	return rollout.Printer{PodEvent: p.PodEvent, Capacity: p.Capacity, Status: p.Status, Gap: p.Gap, Note: p.Note, Requests: p.Requests}
}

// WorkloadLinePrinter prints each change of a rollout as a line as it
// happens, fitting LineWidth columns (its message cut, a note wrapped)
// unless Wide.
type WorkloadLinePrinter struct {
	W    io.Writer
	Wide bool
}

// PodEvent prints a pod's change.
func (p WorkloadLinePrinter) PodEvent(r *rollout.Rollout, tl *timeline.Timeline, e timeline.Event) {
	_ = WriteWorkloadLine(p.W, r, tl, e, p.Wide)
}

// Capacity prints a Service's new endpoint count.
func (p WorkloadLinePrinter) Capacity(r *rollout.Rollout, service string, s rollout.CapacitySample) {
	_ = WriteCapacityLine(p.W, r, service, s, p.Wide)
}

// Status prints a rollout-level change.
func (p WorkloadLinePrinter) Status(r *rollout.Rollout, s rollout.StatusChange) {
	_ = WriteStatusLine(p.W, r, s, p.Wide)
}

// Gap prints a gap's opening or closing.
func (p WorkloadLinePrinter) Gap(r *rollout.Rollout, g timeline.Gap) {
	_ = WriteGapLine(p.W, clock(r), g, p.Wide)
}

// Note prints a remark, wrapped to LineWidth columns unless Wide.
func (p WorkloadLinePrinter) Note(_ *rollout.Rollout, msg string) { _ = writeNote(p.W, msg, p.Wide) }

// WorkloadJSONPrinter prints one JSON object per line as things happen.
type WorkloadJSONPrinter struct{ W io.Writer }

// PodEvent prints a pod's change.
func (p WorkloadJSONPrinter) PodEvent(r *rollout.Rollout, tl *timeline.Timeline, e timeline.Event) {
	_ = WriteWorkloadJSONEvent(p.W, r, tl, e)
}

// Capacity prints a Service's new endpoint count.
func (p WorkloadJSONPrinter) Capacity(r *rollout.Rollout, service string, s rollout.CapacitySample) {
	_ = WriteWorkloadJSONCapacity(p.W, r, service, s)
}

// Status prints a rollout-level change.
func (p WorkloadJSONPrinter) Status(r *rollout.Rollout, s rollout.StatusChange) {
	_ = WriteWorkloadJSONStatus(p.W, r, s)
}

// Gap prints a gap's opening or closing.
func (p WorkloadJSONPrinter) Gap(r *rollout.Rollout, g timeline.Gap) {
	_ = WriteWorkloadJSONGap(p.W, r, g)
}

// Note prints a remark.
func (p WorkloadJSONPrinter) Note(_ *rollout.Rollout, msg string) {
	_ = WriteWorkloadJSONNote(p.W, msg)
}

// Requests prints a bucket of the probe's requests.
func (p WorkloadLinePrinter) Requests(r *rollout.Rollout, l timeline.RequestLine) {
	_ = WriteRequestsLine(p.W, clock(r), l, p.Wide)
}

// Requests prints a bucket of the probe's requests.
func (p WorkloadJSONPrinter) Requests(r *rollout.Rollout, l timeline.RequestLine) {
	JSONPrinter(p).Requests(clock(r), l)
}
