package harness

import (
	"bytes"
	"fmt"
	"time"
)

// drainPhases splits a pool drain's wall time by what it printed: from
// its start to its first line (client set-up, node resolution; with
// --watch the watch's first Lists too), from there to the drain's "Pool
// summary:" line (the drain itself), and from that line to its exit (with
// --watch: the watch's end, its settle time and its summary).
type drainPhases struct {
	start, drain, after time.Duration
	ok                  bool
}

// poolSummaryLine starts the pool drain's own summary (internal/drain/render).
var poolSummaryLine = []byte("Pool summary:")

// phases reads the phases off the lines' arrival times, wall being the
// process's wall time; ok is false when no line or no pool summary was
// printed (kubectl's drain).
func (l *lineClock) phases(wall time.Duration) drainPhases {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lines) == 0 {
		return drainPhases{}
	}
	first, last := l.lines[0].at, l.lines[len(l.lines)-1].at
	for _, ln := range l.lines {
		if bytes.Contains(ln.text, poolSummaryLine) {
			// The process ended about when its last line arrived; what
			// the lines do not cover is its start.
			start := max(wall-last.Sub(first), 0)
			return drainPhases{start: start, drain: ln.at.Sub(first), after: last.Sub(ln.at), ok: true}
		}
	}
	return drainPhases{}
}

// String is the phases as a table cell's note.
func (p drainPhases) String() string {
	if !p.ok {
		return "phases unknown: no pool summary printed"
	}
	return fmt.Sprintf("to its first line %s, drain %s, after the pool summary %s", secs(p.start), secs(p.drain), secs(p.after))
}
