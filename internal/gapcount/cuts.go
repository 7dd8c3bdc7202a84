// Package gapcount says how often watches were cut, for the verdicts of
// the pod, rollout and node watches. A network cut or an API server
// restart ends every watch of a command at once: each watch then opens a
// gap of its own, and counting those gaps would count one cut as many.
package gapcount

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Gap is one watch's cut: its stream's name and when it was lost and
// resumed (To zero while still open).
type Gap struct {
	Stream   string
	From, To time.Time
}

// Cuts returns the number of distinct cuts among gaps, gaps that overlap
// in time (whatever their stream) counting as one, and the sorted names of
// the streams cut. A gap still open overlaps every later one.
func Cuts(gaps []Gap) (cuts int, streams []string) {
	sorted := slices.Clone(gaps)
	slices.SortFunc(sorted, func(a, b Gap) int { return a.From.Compare(b.From) })
	var end time.Time
	open := false
	for i, g := range sorted {
		if !slices.Contains(streams, g.Stream) {
			streams = append(streams, g.Stream)
		}
		if i == 0 || !open && g.From.After(end) {
			cuts++
			end, open = g.To, false
		}
		switch {
		case g.To.IsZero():
			open = true
		case g.To.After(end):
			end = g.To
		}
	}
	slices.Sort(streams)
	return cuts, streams
}

// Sentence says how often the watches were cut, "" when gaps is empty:
// with one watch cut, "the pod watch was cut 2 time(s)"; with several,
// the distinct cuts and the gaps they opened across the watches.
func Sentence(gaps []Gap) string {
	if len(gaps) == 0 {
		return ""
	}
	cuts, streams := Cuts(gaps)
	if len(streams) == 1 {
		return fmt.Sprintf("the %s watch was cut %d time(s)", streams[0], cuts)
	}
	return fmt.Sprintf("the watches were cut %d time(s): %d gap(s) across the %d watches (%s), gaps that overlap in time counted as one cut",
		cuts, len(gaps), len(streams), strings.Join(streams, ", "))
}
