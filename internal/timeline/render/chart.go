package render

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// inOrder returns tl's events in the order they were received (stable for
// events received at the same instant), the order the verdict reads them
// in.
func inOrder(tl *timeline.Timeline) []timeline.Event {
	return slices.SortedStableFunc(slices.Values(tl.Events), func(a, b timeline.Event) int { return a.Recv.Compare(b.Recv) })
}

// chartWidth is the number of columns of the time axis.
const chartWidth = 64

// lane is one row of the chart, one rune a column.
type lane []rune

func newLane() lane { return lane([]rune(strings.Repeat(" ", chartWidth))) }

func (l lane) fill(from, to int, r rune) {
	for i := max(from, 0); i <= to && i < len(l); i++ {
		l[i] = r
	}
}

func (l lane) mark(at int, r rune) {
	if at >= 0 && at < len(l) {
		l[at] = r
	}
}

// markExits marks each exit at its column: X, or ! for a SIGKILL (137).
func (l lane) markExits(exits []timeline.Exit, col func(int64) int) {
	for _, x := range exits {
		r := 'X'
		if x.Code == 137 {
			r = '!'
		}
		l.mark(col(x.Ms), r)
	}
}

// chartSpan returns the last millisecond the chart must show.
func chartSpan(tl *timeline.Timeline, v timeline.Verdict) int64 {
	end := int64(1000)
	for _, e := range tl.Events {
		if ms, ok := tl.Ms(e.Recv); ok && ms > end {
			end = ms
		}
	}
	if v.Requests != nil && v.Requests.LastFailedMs != nil && *v.Requests.LastFailedMs > end {
		end = *v.Requests.LastFailedMs
	}
	return max(end, ptr.Deref(v.StopMs, end), ptr.Deref(v.EndpointOutMs, end))
}

// WriteChart draws the two tracks on one time axis, from the delete request
// to the last event, with the measured times:
//
//	control plane  ==E---------R-G     (endpoint ready, then terminating, removed)
//	kubelet        K~~~~~T====X        (preStop, SIGTERM, shutdown, exit)
//	window          +++++              (margin before SIGTERM; # for a race)
func WriteChart(w io.Writer, tl *timeline.Timeline, v timeline.Verdict) error {
	if tl.T0.IsZero() {
		return nil
	}
	end := chartSpan(tl, v)
	col := func(ms int64) int { return int(ms * int64(chartWidth-1) / end) }
	cp, kl, win := newLane(), newLane(), newLane()

	outCol, removedCol, goneCol := col(ptr.Deref(v.EndpointOutMs, end)), -1, -1 // col(end) is the last column
	if v.BehindService && !tl.EndpointsUnseen {
		cp.fill(0, outCol, '=')
	}
	for _, e := range inOrder(tl) {
		ms, _ := tl.Ms(e.Recv)
		switch e.Kind {
		case timeline.KindEndpointRemoved:
			removedCol = col(ms)
		case timeline.KindPodGone:
			goneCol = col(ms)
		}
	}
	lastExit, exitFrom := -1, -1
	for _, x := range v.Exits {
		if c := col(x.Ms); c >= lastExit {
			lastExit, exitFrom = c, exitLowerBound(tl, x, col)
		}
	}
	if removedCol > outCol {
		cp.fill(outCol, removedCol, '-')
	}
	if v.EndpointOutMs != nil {
		cp.mark(outCol, 'E')
	}
	if removedCol >= 0 {
		cp.mark(removedCol, 'R')
	}
	cp.mark(goneCol, 'G')

	killCol := col(ptr.Deref(v.KillingMs, 0))
	stopCol := -1
	if v.StopMs != nil {
		stopCol = col(*v.StopMs)
		kl.fill(killCol, stopCol, '~')
		// The kubelet reports an exit a sync later than it happened:
		// the span between the earliest the process can have ended
		// (finishedAt, whole seconds) and the report is not shutdown.
		from := max(stopCol, min(exitFrom, lastExit))
		if exitFrom < 0 {
			from = lastExit
		}
		kl.fill(stopCol, from, '=')
		kl.fill(from, lastExit, '?')
	}
	if v.KillingMs != nil {
		kl.mark(killCol, 'K')
	}
	if v.SigtermMs != nil {
		kl.mark(stopCol, 'T')
	}
	kl.markExits(v.Exits, col)
	if v.WindowMs != nil && v.BehindService {
		r := '+'
		if *v.WindowMs < 0 {
			r = '#'
		}
		win.fill(min(outCol, stopCol), max(outCol, stopCol), r)
	}
	var req lane
	if tl.ProbeURL != "" {
		req = requestsLane(tl, col)
	}
	return writeChartRows(w, end, cp, kl, win, req)
}

func writeChartRows(w io.Writer, end int64, cp, kl, win, req lane) error {
	var b strings.Builder
	b.WriteString("\n")
	fmt.Fprintf(&b, "%-15s%s\n", "", axis(end))
	fmt.Fprintf(&b, "%-15s%s\n", "control plane", strings.TrimRight(string(cp), " "))
	fmt.Fprintf(&b, "%-15s%s\n", "kubelet", strings.TrimRight(string(kl), " "))
	if s := strings.TrimRight(string(win), " "); s != "" {
		fmt.Fprintf(&b, "%-15s%s\n", "window", s)
	}
	if req != nil {
		fmt.Fprintf(&b, "%-15s%s\n", "requests", strings.TrimRight(string(req), " "))
	}
	b.WriteString("  axis starts at the delete request (0)\n")
	b.WriteString("  = endpoint routed  E traffic stops (out of every ready set, or stopped serving when no other endpoint was ready)\n")
	b.WriteString("  - terminating  R removed  G object gone\n")
	b.WriteString("  K Killing  ~ preStop  T SIGTERM (estimated)  = shutting down  ? exited by here  X exit reported  ! SIGKILL\n")
	b.WriteString("  window: + time the data plane had before SIGTERM, # race (stopped while still routed)\n")
	if req != nil {
		b.WriteString("  requests: . all ok  x a request started here failed\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// axis returns a ruler with a label every 16 columns, in seconds.
func axis(end int64) string {
	r := []rune(strings.Repeat(" ", chartWidth+8))
	for c := 0; c < chartWidth; c += 16 {
		label := fmt.Sprintf("|%.1fs", float64(int64(c)*end/int64(chartWidth-1))/1000)
		copy(r[c:], []rune(label))
	}
	label := fmt.Sprintf("%.1fs|", float64(end)/1000)
	copy(r[chartWidth-len(label):], []rune(label))
	return strings.TrimRight(string(r), " ")
}

// exitLowerBound returns the column of the earliest moment the process of
// exit x can have ended: its finishedAt (whole seconds, the node's clock)
// on this timeline, -1 when it has none.
func exitLowerBound(tl *timeline.Timeline, x timeline.Exit, col func(int64) int) int {
	if x.Server.IsZero() {
		return -1
	}
	ms := x.Server.Sub(tl.T0.Round(0)).Milliseconds()
	return col(max(ms, 0))
}
