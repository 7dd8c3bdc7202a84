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

// capacityJSON is a Service's new endpoint count on tl's clock, msg saying
// it in words.
func capacityJSON(tl *timeline.Timeline, service string, s rollout.CapacitySample, msg string) WorkloadJSONLine {
	return WorkloadJSONLine{
		JSONEvent: JSONEvent{Type: "capacity", Ms: msPtr(tl, s.Recv), Local: s.Recv.Round(0), Service: service,
			Message: msg, Initial: s.Initial},
		Capacity: &JSONCapacity{Ready: s.Ready, ServingTerminating: s.ServingTerminating, Desired: s.Desired},
	}
}

// noteJSON is a note of every watch (pod, rollout, node) in -o json.
func noteJSON(msg string) WorkloadJSONLine {
	return WorkloadJSONLine{JSONEvent: JSONEvent{Type: "note", Local: time.Now().Round(0), Message: msg}}
}

// WriteWorkloadJSONSummary writes the summary object that ends -o json.
func WriteWorkloadJSONSummary(w io.Writer, r *rollout.Rollout, v rollout.Verdict) error {
	s := WorkloadJSONSummary{Type: "summary", Workload: r.Workload, Selector: r.Selector, T0Source: r.T0Source,
		Services: orEmpty(r.Services), Budgets: orEmpty(r.Budgets), EndpointsUnseen: r.EndpointsUnseen, Verdict: v,
		Gaps: jsonGaps(clockOf(r.T0), r.Gaps), Notes: orEmpty(r.Notes)}
	for i := range s.Verdict.Pods {
		s.Verdict.Pods[i].Verdict.Exits = orEmpty(s.Verdict.Pods[i].Verdict.Exits)
	}
	return termsafe.NewJSONEncoder(w).Encode(s)
}
