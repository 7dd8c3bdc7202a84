package render

import (
	"io"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// WorkloadJSONLine is one line of `watch deployment/NAME -o json` while it
// runs. Type is "event" (a pod's change, Pod set), "gap", "capacity"
// (Service and Capacity set), "status" or "note". Ms counts from the
// rollout's start; it is absent before the rollout started.
type WorkloadJSONLine struct {
	JSONEvent
	Pod      string        `json:"pod,omitempty"`
	Capacity *JSONCapacity `json:"capacity,omitempty"`
}

// JSONCapacity is a Service's endpoint count in a "capacity" line.
type JSONCapacity struct {
	Ready              int32 `json:"ready"`
	ServingTerminating int32 `json:"servingTerminating"`
	Desired            int32 `json:"desired"`
}

// WorkloadJSONSummary is the last line of `watch deployment/NAME -o json`.
type WorkloadJSONSummary struct {
	Type     string            `json:"type"`
	Workload rollout.Workload  `json:"workload"`
	Selector string            `json:"selector"`
	T0Source timeline.T0Source `json:"t0Source"`
	Services []string          `json:"services"`
	Budgets  []rollout.Budget  `json:"budgets"`
	// EndpointsUnseen is true when the EndpointSlices could not be watched:
	// no pod's race was judged.
	EndpointsUnseen bool            `json:"endpointsUnseen"`
	Verdict         rollout.Verdict `json:"verdict"`
	Gaps            []JSONGap       `json:"gaps"`
	Notes           []string        `json:"notes"`
}

func writeJSONLine(w io.Writer, l WorkloadJSONLine) error {
	return termsafe.NewJSONEncoder(w).Encode(l)
}

// WriteWorkloadJSONEvent writes a pod's event as a JSON line.
func WriteWorkloadJSONEvent(w io.Writer, r *rollout.Rollout, tl *timeline.Timeline, e timeline.Event) error {
	c := clock(r)
	return writeJSONLine(w, WorkloadJSONLine{Pod: tl.Pod, JSONEvent: JSONEvent{
		Type: "event", Ms: msPtr(c, e.Recv), Local: e.Recv.Round(0), Server: e.Server, Track: e.Track, Kind: e.Kind,
		Message: e.Message, Container: e.Container, ExitCode: e.ExitCode, Service: e.Service, Slice: e.Slice,
		Endpoint: e.Endpoint, OthersReady: e.OthersReady, Initial: e.Initial,
	}})
}

// WriteWorkloadJSONCapacity writes a Service's new endpoint count.
func WriteWorkloadJSONCapacity(w io.Writer, r *rollout.Rollout, service string, s rollout.CapacitySample) error {
	return writeJSONLine(w, WorkloadJSONLine{
		JSONEvent: JSONEvent{Type: "capacity", Ms: msPtr(clock(r), s.Recv), Local: s.Recv.Round(0), Service: service,
			Message: capacityText(s), Initial: s.Initial},
		Capacity: &JSONCapacity{Ready: s.Ready, ServingTerminating: s.ServingTerminating, Desired: s.Desired},
	})
}

// WriteWorkloadJSONStatus writes a rollout-level change.
func WriteWorkloadJSONStatus(w io.Writer, r *rollout.Rollout, s rollout.StatusChange) error {
	return writeJSONLine(w, WorkloadJSONLine{Pod: s.Pod,
		JSONEvent: JSONEvent{Type: "status", Ms: msPtr(clock(r), s.Recv), Local: s.Recv.Round(0), Message: s.Message}})
}

// WriteWorkloadJSONGap writes a gap's opening or closing.
func WriteWorkloadJSONGap(w io.Writer, r *rollout.Rollout, g timeline.Gap) error {
	return WriteJSONGap(w, clock(r), g)
}

// WriteWorkloadJSONNote writes a note.
func WriteWorkloadJSONNote(w io.Writer, msg string) error {
	now := time.Now()
	return writeJSONLine(w, WorkloadJSONLine{JSONEvent: JSONEvent{Type: "note", Local: now.Round(0), Message: msg}})
}

// WriteWorkloadJSONSummary writes the summary object that ends -o json.
func WriteWorkloadJSONSummary(w io.Writer, r *rollout.Rollout, v rollout.Verdict) error {
	s := WorkloadJSONSummary{Type: "summary", Workload: r.Workload, Selector: r.Selector, T0Source: r.T0Source,
		Services: r.Services, Budgets: r.Budgets, EndpointsUnseen: r.EndpointsUnseen, Verdict: v, Gaps: []JSONGap{}, Notes: r.Notes}
	if s.Services == nil {
		s.Services = []string{}
	}
	if s.Budgets == nil {
		s.Budgets = []rollout.Budget{}
	}
	if s.Notes == nil {
		s.Notes = []string{}
	}
	for _, g := range r.Gaps {
		s.Gaps = append(s.Gaps, *jsonGap(clock(r), g))
	}
	for i := range s.Verdict.Pods {
		if s.Verdict.Pods[i].Verdict.Exits == nil {
			s.Verdict.Pods[i].Verdict.Exits = []timeline.Exit{}
		}
	}
	return termsafe.NewJSONEncoder(w).Encode(s)
}
