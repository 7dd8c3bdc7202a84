package render

import (
	"fmt"
	"io"
	"slices"

	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/probe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// requestsText is a bucket in words: "20 ok" or "3 ok, 2 failed (502 x2)".
func requestsText(l timeline.RequestLine) string {
	if l.Failed == 0 {
		return fmt.Sprintf("%d ok", l.OK)
	}
	return fmt.Sprintf("%d ok, %d failed (%s)", l.OK, l.Failed, timeline.KindsText(l.Kinds))
}

// WriteRequestsLine writes one 100 ms bucket of probe requests as a line on
// the "requests" track, at the start of the bucket; wide adds the
// server-time column (noServerTime).
func WriteRequestsLine(w io.Writer, tl *timeline.Timeline, l timeline.RequestLine, wide bool) error {
	_, err := fmt.Fprintf(w, "%s%-13s  %s\n", clockHead(msColumn(tl, l.From, false), noServerTime, wide), "requests", termsafe.Escape(requestsText(l)))
	return err
}

// Requests prints a bucket of the probe's requests.
func (p LinePrinter) Requests(tl *timeline.Timeline, l timeline.RequestLine) {
	_ = WriteRequestsLine(p.W, tl, l, p.Wide)
}

// JSONRequests is one line of -o json for a bucket of probe requests.
type JSONRequests struct {
	Type   string                `json:"type"`
	Ms     *int64                `json:"ms,omitempty"`
	Track  string                `json:"track"`
	OK     int                   `json:"ok"`
	Failed int                   `json:"failed"`
	Kinds  []timeline.LabelCount `json:"kinds"`
}

// Requests prints a bucket of the probe's requests.
func (p JSONPrinter) Requests(tl *timeline.Timeline, l timeline.RequestLine) {
	_ = termsafe.NewJSONEncoder(p.W).Encode(JSONRequests{Type: "requests", Ms: msPtr(tl, l.From), Track: "requests", OK: l.OK, Failed: l.Failed, Kinds: orEmpty(l.Kinds)})
}

// requestsLane marks each column of the chart: x where a request started
// in it failed, . where requests started and all succeeded. A request
// covers the columns up to the next one's start, so the lane has no holes
// between requests at any rate.
func requestsLane(tl *timeline.Timeline, col func(int64) int) lane {
	ln := newLane()
	var cols []int
	var failed []bool
	for _, r := range slices.SortedFunc(slices.Values(tl.Requests), func(a, b probe.Result) int { return a.Start.Compare(b.Start) }) {
		if ms, ok := tl.Ms(r.Start); ok && ms >= 0 {
			cols = append(cols, col(ms))
			failed = append(failed, r.Failed())
		}
	}
	for i, c := range cols {
		to := c
		if i+1 < len(cols) {
			to = max(c, cols[i+1]-1)
		}
		for k := max(c, 0); k <= to && k < len(ln); k++ {
			switch {
			case failed[i]:
				ln[k] = 'x'
			case ln[k] == ' ':
				ln[k] = '.'
			}
		}
	}
	return ln
}

// writeMermaidRequests adds a section with the span of failed requests.
func writeMermaidRequests(w io.Writer, rv *timeline.RequestsVerdict) {
	if rv == nil {
		return
	}
	fmt.Fprintf(w, "    section requests\n")
	if rv.Failed == 0 {
		fmt.Fprintf(w, "    0 of %d requests failed :done, 0, 1ms\n", rv.Total)
		return
	}
	from, to := *rv.FirstFailedMs, *rv.LastFailedMs
	fmt.Fprintf(w, "    %d of %d requests failed (%s) :crit, %d, %dms\n", rv.Failed, rv.Total, mermaidText(timeline.KindsText(rv.Kinds)), from, max(to-from, 1))
}
