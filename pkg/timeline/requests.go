package timeline

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/probe"
)

// LabelCount is how many requests ended one way: Kind, and for
// probe.Status the HTTP status code.
type LabelCount struct {
	Kind   probe.Kind `json:"kind"`
	Status int        `json:"status,omitempty"`
	Count  int        `json:"count"`
}

// label is the outcome in the words of the text output: "502",
// "connection refused", "reset", "timeout", "other".
func (k LabelCount) label() string { return probe.Result{Kind: k.Kind, Status: k.Status}.Label() }

// RequestLine is one 100 ms bucket of probe requests, as the live lines
// show it: those started in [From, From+100 ms).
type RequestLine struct {
	From   time.Time
	OK     int
	Failed int
	// Kinds counts the failures by outcome, most frequent first.
	Kinds []LabelCount
}

// failureKinds counts the failed results by label, most frequent first,
// then by label.
func failureKinds(rs []probe.Result) []LabelCount {
	counts := map[LabelCount]int{} // by Kind and Status, Count unset
	for _, r := range rs {
		if r.Failed() {
			o := LabelCount{Kind: r.Kind}
			if r.Kind == probe.Status {
				o.Status = r.Status
			}
			counts[o]++
		}
	}
	out := make([]LabelCount, 0, len(counts))
	for o, n := range counts {
		o.Count = n
		out = append(out, o)
	}
	slices.SortFunc(out, func(a, b LabelCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.label(), b.label()))
	})
	return out
}

// KindsText writes counts as "502 x7, connection refused x5".
func KindsText(ks []LabelCount) string {
	parts := make([]string, 0, len(ks))
	for _, k := range ks {
		parts = append(parts, fmt.Sprintf("%s x%d", k.label(), k.Count))
	}
	return strings.Join(parts, ", ")
}

// RequestLog decides which buckets get a line: those with failures, and
// those whose state changed (the first bucket, the first without failures
// after some).
type RequestLog struct {
	lines int
	state string // the failure mix of the last line
}

// Lines summarizes one bucket into the lines it gets, in time order. A
// bucket that t0 (the delete request, the rollout's start; zero: none
// yet) falls inside is cut at t0, a line for the requests started before
// it and one, stamped t0, for those started from it: a line stamped
// before the delete never counts a request sent after it.
func (rl *RequestLog) Lines(b probe.Bucket, t0 time.Time) []RequestLine {
	var out []RequestLine
	for _, part := range cutAt(b, t0) {
		if l, shown := rl.line(part); shown {
			out = append(out, l)
		}
	}
	return out
}

// line summarizes one bucket and reports whether it gets a line.
func (rl *RequestLog) line(b probe.Bucket) (RequestLine, bool) {
	l := RequestLine{From: b.From, Kinds: failureKinds(b.Results), Failed: b.Failed()}
	l.OK = len(b.Results) - l.Failed
	state := KindsText(l.Kinds)
	if l.Failed == 0 && rl.lines > 0 && state == rl.state {
		return l, false
	}
	rl.lines++
	rl.state = state
	return l, true
}

// cutAt is b, or its requests started before t and those started from
// t (a part with none left out) when t falls inside b's span.
func cutAt(b probe.Bucket, t time.Time) []probe.Bucket {
	if t.IsZero() || !t.After(b.From) || !t.Before(bucketEnd(b.From)) {
		return []probe.Bucket{b}
	}
	before, after := probe.Bucket{From: b.From}, probe.Bucket{From: t}
	for _, r := range b.Results {
		if r.Start.Before(t) {
			before.Results = append(before.Results, r)
		} else {
			after.Results = append(after.Results, r)
		}
	}
	return slices.DeleteFunc([]probe.Bucket{before, after}, func(p probe.Bucket) bool { return len(p.Results) == 0 })
}

// requests records a bucket of probe results and prints its line when the
// RequestLog says so, after the held lines of before the bucket and
// before those of its span (releaseLines).
func (f *follower) requests(b probe.Bucket) {
	tl := f.rec.TL
	tl.Requests = append(tl.Requests, b.Results...)
	f.releaseLines(b.From)
	if p := f.cfg.Printer.Requests; p != nil {
		for _, l := range f.reqLog.Lines(b, tl.T0) {
			f.releaseLines(l.From)
			p(tl, l)
		}
	}
	f.releaseLines(bucketEnd(b.From))
}
