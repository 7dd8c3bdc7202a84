package render

import (
	"io"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// JSONEvent is one line of -o json while the watch runs. Type is "event" or
// "gap"; Ms is absent for changes seen before the delete request.
type JSONEvent struct {
	Type      string                  `json:"type"`
	Ms        *int64                  `json:"ms,omitempty"`
	Local     time.Time               `json:"localTime"`
	Server    time.Time               `json:"serverTime,omitzero"`
	Track     timeline.Track          `json:"track,omitempty"`
	Kind      timeline.Kind           `json:"kind,omitempty"`
	Message   string                  `json:"message,omitempty"`
	Container string                  `json:"container,omitempty"`
	ExitCode  *int32                  `json:"exitCode,omitempty"`
	Service   string                  `json:"service,omitempty"`
	Slice     string                  `json:"endpointSlice,omitempty"`
	Endpoint  *timeline.EndpointState `json:"endpoint,omitempty"`
	// OthersReady is the Service's count of other pods' ready endpoints,
	// for kind ServiceEndpoints.
	OthersReady *int     `json:"othersReady,omitempty"`
	Initial     bool     `json:"beforeWatch,omitempty"`
	Gap         *JSONGap `json:"gap,omitempty"`
}

// JSONGap describes a watch gap in milliseconds since the delete request.
type JSONGap struct {
	Stream   string `json:"stream"`
	FromMs   *int64 `json:"fromMs,omitempty"`
	ToMs     *int64 `json:"toMs,omitempty"`
	Relisted bool   `json:"relisted"`
	Reason   string `json:"reason,omitempty"`
	// Stalled marks a stall: connected, but a change arrived late.
	Stalled bool `json:"stalled"`
}

// JSONSummary is the last line of -o json.
type JSONSummary struct {
	Type               string            `json:"type"`
	Namespace          string            `json:"namespace"`
	Pod                string            `json:"pod"`
	UID                string            `json:"uid"`
	T0Source           timeline.T0Source `json:"t0Source"`
	GracePeriodSeconds int64             `json:"gracePeriodSeconds"`
	Services           []string          `json:"services"`
	Verdict            timeline.Verdict  `json:"verdict"`
	Gaps               []JSONGap         `json:"gaps"`
	Notes              []string          `json:"notes"`
}

func msPtr(tl *timeline.Timeline, t time.Time) *int64 {
	if ms, ok := tl.Ms(t); ok && !t.IsZero() {
		return &ms
	}
	return nil
}

func jsonGap(tl *timeline.Timeline, g timeline.Gap) *JSONGap {
	return &JSONGap{Stream: g.Stream, FromMs: msPtr(tl, g.From), ToMs: msPtr(tl, g.To), Relisted: g.Relisted, Reason: g.Reason, Stalled: g.Stalled}
}

// jsonGaps is gaps on tl's clock, [] when none.
func jsonGaps(tl *timeline.Timeline, gaps []timeline.Gap) []JSONGap {
	out := []JSONGap{}
	for _, g := range gaps {
		out = append(out, *jsonGap(tl, g))
	}
	return out
}

// jsonEvent is event e on tl's clock, as every watch's -o json writes it.
func jsonEvent(tl *timeline.Timeline, e timeline.Event) JSONEvent {
	return JSONEvent{
		Type: "event", Ms: msPtr(tl, e.Recv), Local: e.Recv.Round(0), Server: e.Server, Track: e.Track, Kind: e.Kind,
		Message: e.Message, Container: e.Container, ExitCode: e.ExitCode, Service: e.Service, Slice: e.Slice,
		Endpoint: e.Endpoint, OthersReady: e.OthersReady, Initial: e.Initial,
	}
}

// WriteJSONEvent writes one event as a JSON line.
func WriteJSONEvent(w io.Writer, tl *timeline.Timeline, e timeline.Event) error {
	return termsafe.NewJSONEncoder(w).Encode(jsonEvent(tl, e))
}

// gapAt is when a gap's line is stamped: its opening while To is zero,
// its closing otherwise.
func gapAt(g timeline.Gap) time.Time {
	if g.To.IsZero() {
		return g.From
	}
	return g.To
}

// WriteJSONGap writes a gap's opening or closing as a JSON line.
func WriteJSONGap(w io.Writer, tl *timeline.Timeline, g timeline.Gap) error {
	at := gapAt(g)
	return termsafe.NewJSONEncoder(w).Encode(JSONEvent{Type: "gap", Ms: msPtr(tl, at), Local: at.Round(0), Gap: jsonGap(tl, g)})
}

// WriteJSONSummary writes the summary object that ends -o json.
func WriteJSONSummary(w io.Writer, tl *timeline.Timeline, v timeline.Verdict) error {
	s := JSONSummary{Type: "summary", Namespace: tl.Namespace, Pod: tl.Pod, UID: tl.UID, T0Source: tl.T0Source,
		GracePeriodSeconds: tl.GracePeriodSeconds, Services: orEmpty(tl.Services), Verdict: nonNilLists(v),
		Gaps: jsonGaps(tl, tl.Gaps), Notes: orEmpty(tl.Notes)}
	return termsafe.NewJSONEncoder(w).Encode(s)
}

// nonNilLists returns v with every nil list made empty, so that -o json
// writes [] and never null.
func nonNilLists(v timeline.Verdict) timeline.Verdict {
	v.NoReadyEndpoint = orEmpty(v.NoReadyEndpoint)
	v.Containers = orEmpty(v.Containers)
	v.Exits = orEmpty(v.Exits)
	v.Findings = orEmpty(v.Findings)
	v.PartialStreams = orEmpty(v.PartialStreams)
	return v
}

// orEmpty is s, or an empty list when s is nil: -o json writes [], never
// null.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
