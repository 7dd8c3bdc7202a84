package timeline

import (
	"slices"
	"time"

	iprobe "github.com/kubectl-graceful/kubectl-graceful/internal/probe"
)

// heldLine is a line of a probed watch waiting for the probe's buckets
// before it: at is the time it shows.
type heldLine struct {
	at    time.Time
	print func()
}

// line prints what a line shows at `at`: at once without a probe; with
// one, once the probe has handed out its buckets up to at (requests).
// The prober hands out a 100 ms bucket only when every request started
// in it has ended, up to the probe's timeout later, while the watches'
// changes arrive as they happen: printed as they come, a bucket's line
// would follow the changes of the time its requests took.
func (f *follower) line(at time.Time, print func()) {
	if f.cfg.Requests == nil {
		print()
		return
	}
	f.held = append(f.held, heldLine{at: at, print: print})
}

// releaseLines prints the held lines showing a time before until, in
// time order (in the order they came for the same time).
func (f *follower) releaseLines(until time.Time) {
	var out []heldLine
	kept := f.held[:0]
	for _, h := range f.held {
		if h.at.Before(until) {
			out = append(out, h)
		} else {
			kept = append(kept, h)
		}
	}
	f.held = kept
	slices.SortStableFunc(out, func(a, b heldLine) int { return a.at.Compare(b.at) })
	for _, h := range out {
		h.print()
	}
}

// flushLines prints every held line: the watch has ended, no bucket
// comes any more.
func (f *follower) flushLines() {
	for _, h := range f.held {
		h.print()
	}
	f.held = nil
}

// bucketEnd is when bucket b's span ends: what the watch saw before then
// is printed after b's line.
func bucketEnd(from time.Time) time.Time { return from.Add(iprobe.BucketWidth) }
