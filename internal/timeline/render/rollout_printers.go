package render

import (
	"cmp"
	"io"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// RolloutLinePrinter returns the rollout.Printer of the text output: each
// change of a rollout as a line on out as it happens, fitting LineWidth
// columns (its message cut, a note wrapped) unless wide: milliseconds
// since the rollout's start (wide adds the server's time), what it is
// about (a pod, a Service, the workload), the track and the message.
func RolloutLinePrinter(out io.Writer, wide bool) rollout.Printer {
	line := func(r *rollout.Rollout, at time.Time, initial bool, server time.Time, subject, track, msg string) {
		_ = writeColumns(out, LineWidth, clockHead(msColumn(clockOf(r.T0), at, initial), serverColumn(server), wide), subject, 28, track, msg, wide)
	}
	return rollout.Printer{
		PodEvent: func(r *rollout.Rollout, tl *timeline.Timeline, e timeline.Event) {
			if wide || !followsExit(e) {
				line(r, e.Recv, e.Initial, e.Server, tl.Pod, trackText(e.Track), e.Message)
			}
		},
		Capacity: func(r *rollout.Rollout, service string, s rollout.CapacitySample) {
			line(r, s.Recv, s.Initial, time.Time{}, "Service "+service, "capacity", capacityText(s, "desired"))
		},
		Status: func(r *rollout.Rollout, s rollout.StatusChange) {
			line(r, s.Recv, false, time.Time{}, cmp.Or(s.Pod, r.Workload.String()), "rollout", s.Message)
		},
		Gap:      func(r *rollout.Rollout, g timeline.Gap) { _ = WriteGapLine(out, clockOf(r.T0), g, wide) },
		Note:     func(_ *rollout.Rollout, msg string) { _ = writeNote(out, msg, LineWidth, wide) },
		Requests: func(r *rollout.Rollout, l timeline.RequestLine) { _ = WriteRequestsLine(out, clockOf(r.T0), l, wide) },
	}
}

// RolloutJSONPrinter returns the rollout.Printer of -o json: one JSON
// object a line on out as things happen.
func RolloutJSONPrinter(out io.Writer) rollout.Printer {
	enc := func(l WorkloadJSONLine) { _ = termsafe.NewJSONEncoder(out).Encode(l) }
	return rollout.Printer{
		PodEvent: func(r *rollout.Rollout, tl *timeline.Timeline, e timeline.Event) {
			enc(WorkloadJSONLine{Pod: tl.Pod, JSONEvent: jsonEvent(clockOf(r.T0), e)})
		},
		Capacity: func(r *rollout.Rollout, service string, s rollout.CapacitySample) {
			enc(capacityJSON(clockOf(r.T0), service, s, capacityText(s, "desired")))
		},
		Status: func(r *rollout.Rollout, s rollout.StatusChange) {
			enc(WorkloadJSONLine{Pod: s.Pod,
				JSONEvent: JSONEvent{Type: "status", Ms: msPtr(clockOf(r.T0), s.Recv), Local: s.Recv.Round(0), Message: s.Message}})
		},
		Gap:      func(r *rollout.Rollout, g timeline.Gap) { _ = WriteJSONGap(out, clockOf(r.T0), g) },
		Note:     func(_ *rollout.Rollout, msg string) { enc(noteJSON(msg)) },
		Requests: func(r *rollout.Rollout, l timeline.RequestLine) { JSONPrinter{W: out}.Requests(clockOf(r.T0), l) },
	}
}
