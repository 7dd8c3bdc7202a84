package render

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// shifted returns v with every time moved by off milliseconds: a pod's
// verdict counts from its own deletion, the rollout chart from the
// rollout's start.
func shifted(v timeline.Verdict, off int64) timeline.Verdict {
	add := func(p *int64) *int64 {
		if p == nil {
			return nil
		}
		return new(*p + off)
	}
	s := v
	s.EndpointOutMs, s.KillingMs, s.SigtermMs, s.StopMs = add(v.EndpointOutMs), add(v.KillingMs), add(v.SigtermMs), add(v.StopMs)
	s.DeadlineMs = v.DeadlineMs + off
	s.Exits = make([]timeline.Exit, len(v.Exits))
	for i, x := range v.Exits {
		x.Ms += off
		s.Exits[i] = x
	}
	return s
}

// rolloutSpan returns the last millisecond the rollout chart must show.
func rolloutSpan(r *rollout.Rollout, v rollout.Verdict) int64 {
	end := int64(1000)
	for _, tl := range r.Pods {
		for _, e := range tl.Events {
			if ms, ok := r.Ms(e.Recv); ok {
				end = max(end, ms)
			}
		}
	}
	for _, tr := range r.Capacity {
		for _, s := range tr.Samples {
			if ms, ok := r.Ms(s.Recv); ok {
				end = max(end, ms)
			}
		}
	}
	for _, p := range v.Pods {
		sv := shifted(p.Verdict, p.DeletedMs)
		end = max(end, ptr.Deref(sv.StopMs, end), ptr.Deref(sv.EndpointOutMs, end))
	}
	return end
}

// WriteRolloutChart draws one row per terminated pod on one time axis from
// the rollout's start, then each Service's ready endpoints as a step line:
//
//	web-1   D~~~~T==X-G        (deletion, preStop, SIGTERM, exit, gone;
//	                            a later mark hides an earlier one in its column)
//	web-2        D#T=E-X       (# a race: stopped while still routed)
//	ready 4 ****     ******
//	      3 ***************
func WriteRolloutChart(w io.Writer, r *rollout.Rollout, v rollout.Verdict) error {
	if r.T0.IsZero() || len(v.Pods) == 0 && len(r.Capacity) == 0 {
		return nil
	}
	end := rolloutSpan(r, v)
	col := func(ms int64) int { return int(max(ms, 0) * int64(chartWidth-1) / end) }
	width := 12
	for _, p := range v.Pods {
		width = max(width, len(chartLabel(p.Pod)))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-*s%s\n", width+2, "", axis(end))
	terminated := r.Terminated()
	for i, p := range v.Pods {
		row := podRow(r, terminated[i], p, col)
		fmt.Fprintf(&b, "%-*s%s\n", width+2, chartLabel(p.Pod), strings.TrimRight(string(row), " "))
	}
	for _, tr := range r.Capacity {
		writeStepRows(&b, r, tr, end, width)
	}
	if r.ProbeURL != "" {
		row := requestsLane(&timeline.Timeline{T0: r.T0, Requests: r.Requests}, col)
		fmt.Fprintf(&b, "%-*s%s\n", width+2, "requests", strings.TrimRight(string(row), " "))
	}
	b.WriteString("  axis starts at the rollout's start (0); one row a terminated pod\n")
	b.WriteString(podRowsLegend)
	if r.ProbeURL != "" {
		b.WriteString("  requests: . all ok  x a request started here failed\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// podRowsLegend explains the marks of podRow and the rows of writeStepRows,
// in the rollout's chart and the drain's.
const podRowsLegend = "  D deletion seen  - terminating  ~ preStop  T SIGTERM (estimated)  = shutting down  X exit  ! SIGKILL\n" +
	"  E endpoint out of every ready set  # race (stopped while still routed)  G object gone\n" +
	"  ready: ready endpoints of the Service over time, one row a count (* at or above it)\n"

// chartLabel keeps the end of a long pod name, where its unique suffix is,
// escaped for the terminal after the cut (a cut inside a rune leaves bytes
// that Escape then shows).
func chartLabel(name string) string {
	const maxLen = 32
	if len(name) > maxLen {
		name = "..." + name[len(name)-maxLen+3:]
	}
	return termsafe.Escape(name)
}

func podRow(r *rollout.Rollout, tl *timeline.Timeline, p rollout.PodResult, col func(int64) int) lane {
	row := newLane()
	sv := shifted(p.Verdict, p.DeletedMs)
	del, gone := col(p.DeletedMs), chartWidth-1
	for _, e := range tl.Events {
		if ms, ok := r.Ms(e.Recv); ok && e.Kind == timeline.KindPodGone {
			gone = col(ms)
		}
	}
	row.fill(del, gone, '-')
	lastExit := -1
	for _, x := range sv.Exits {
		lastExit = max(lastExit, col(x.Ms))
	}
	if sv.StopMs != nil {
		if sv.KillingMs != nil {
			row.fill(col(*sv.KillingMs), col(*sv.StopMs), '~')
		}
		row.fill(col(*sv.StopMs), lastExit, '=')
		if sv.EndpointOutMs != nil && *sv.StopMs < *sv.EndpointOutMs && p.Raced {
			row.fill(col(*sv.StopMs), col(*sv.EndpointOutMs), '#')
		}
	}
	if gone < chartWidth-1 || tl.HasKind(timeline.KindPodGone) {
		row.mark(gone, 'G')
	}
	row.mark(del, 'D')
	if sv.EndpointOutMs != nil {
		row.mark(col(*sv.EndpointOutMs), 'E')
	}
	if sv.SigtermMs != nil {
		row.mark(col(*sv.SigtermMs), 'T')
	}
	row.markExits(sv.Exits, col)
	return row
}

// writeStepRows draws a Service's ready endpoint count per column (the
// lowest count within the column, so that short dips show), one row per
// count from the highest (or the desired replicas) down to the lowest, at
// most eight rows.
func writeStepRows(b *strings.Builder, r *rollout.Rollout, tr *rollout.CapacityTrack, end int64, width int) {
	if len(tr.Samples) == 0 {
		return
	}
	vals := make([]int32, chartWidth)
	for c := range chartWidth {
		from := r.T0.Add(time.Duration(int64(c)*end/int64(chartWidth-1)) * time.Millisecond)
		to := r.T0.Add(time.Duration(int64(c+1)*end/int64(chartWidth-1)) * time.Millisecond)
		vals[c] = readyWithin(tr, from, to)
	}
	hi, lo := max(slices.Max(vals), tr.Samples[len(tr.Samples)-1].Desired), slices.Min(vals)
	step := max((hi-lo+8)/8, 1)
	label := "ready " + tr.Service
	for level := hi; level >= max(lo, 1); level -= step {
		row := newLane()
		for c, v := range vals {
			if v >= level {
				row[c] = '*'
			}
		}
		fmt.Fprintf(b, "%-*s%3d %s\n", width-2, chartLabel(label), level, strings.TrimRight(string(row), " "))
		label = ""
	}
}

// readyWithin returns the lowest ready count in effect during [from, to).
func readyWithin(tr *rollout.CapacityTrack, from, to time.Time) int32 {
	low := int32(-1)
	for i, s := range tr.Samples {
		next := time.Time{}
		if i+1 < len(tr.Samples) {
			next = tr.Samples[i+1].Recv
		}
		if !s.Recv.Before(to) || (!next.IsZero() && !next.After(from)) {
			continue
		}
		if low < 0 || s.Ready < low {
			low = s.Ready
		}
	}
	return max(low, 0)
}
