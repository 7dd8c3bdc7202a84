package render

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	trender "github.com/kubectl-graceful/kubectl-graceful/internal/timeline/render"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

// Progress shows each pod's progress while a node drains. On a terminal it
// redraws one line per pod in place every RedrawInterval; otherwise it
// prints a line each time a pod's state or cause changes, so logs and pipes
// get a plain record.
type Progress struct {
	out   io.Writer
	tty   bool
	width int // terminal columns, 0 when unknown
	// stamped: the writer starts each line with a clock (SetStamped).
	stamped bool
	// columns is what a plain line fits in, 0 for no limit (SetStamped).
	columns int

	mu sync.Mutex
	// node is the node shown, start when its evictions started (zero
	// before), pods the last progress told of each of its pods.
	node    string
	start   time.Time
	pods    map[string]drain.PodProgress
	drawn   int // lines drawn by the last redraw
	stop    chan struct{}
	stopped chan struct{}
}

// RedrawInterval is how often the terminal view is redrawn.
const RedrawInterval = 250 * time.Millisecond

// NewProgress returns a Progress writing to out; tty selects the redrawn
// view, width (columns, 0 = unknown) truncates its lines so they never wrap.
func NewProgress(out io.Writer, tty bool, width int) *Progress {
	return &Progress{out: out, tty: tty, width: width}
}

// Changed is drain.Events.PodChanged of one node: kept for the next
// redraw on a terminal, a plain line otherwise.
func (p *Progress) Changed(pp drain.PodProgress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty {
		if p.pods != nil {
			p.pods[pp.Namespace+"/"+pp.Name] = pp
		}
		return
	}
	if p.stamped && (pp.State == drain.StateTerminating || pp.State == drain.StateGone && pp.GoneBy == drain.GoneByEviction) {
		// Under --watch (stamped) the watch's own lines say these,
		// "deletionTimestamp set" and "pod object deleted", from the same
		// pod watch; the summary's table keeps the attempts.
		return
	}
	fmt.Fprintln(p.out, p.plainLine("", pp, p.since(p.start)))
}

// since is a plain line's time: since start, 0 before it (zero), none
// (noClock) when the writer stamps each line.
func (p *Progress) since(start time.Time) time.Duration {
	switch {
	case p.stamped:
		return noClock
	case start.IsZero():
		return 0
	}
	return time.Since(start)
}

// plainLine is a plain progress line after prefix (a pool node's
// "node: "), fitting p.columns when set: the pod's name elided, then the
// cause cut (the summary has it whole).
func (p *Progress) plainLine(prefix string, pp drain.PodProgress, elapsed time.Duration) string {
	if p.columns == 0 {
		return prefix + progressLine(pp, elapsed, 0)
	}
	name := min(trender.MaxName, p.columns-len([]rune(prefix))-len(fmt.Sprintf(" %-12s", ""))-minCause)
	return trender.CutLine(prefix+progressLine(pp, elapsed, name), p.columns)
}

// minCause is the fewest columns a fitted plain line gives the state's
// cause before the pod's name is elided.
const minCause = 30

// Start begins showing node's drain, its pods' progress as
// drain.Events.EvictionsStarted gives it.
func (p *Progress) Start(node string, pods []drain.PodProgress) {
	p.mu.Lock()
	p.node, p.start, p.pods = node, time.Now(), map[string]drain.PodProgress{}
	for _, pp := range pods {
		p.pods[pp.Namespace+"/"+pp.Name] = pp
	}
	p.mu.Unlock()
	if !p.tty {
		return
	}
	p.stop, p.stopped = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.stopped)
		tick := time.NewTicker(RedrawInterval)
		defer tick.Stop()
		for {
			p.redraw()
			select {
			case <-p.stop:
				p.redraw()
				return
			case <-tick.C:
			}
		}
	}()
}

// Stop draws the last state and stops redrawing.
func (p *Progress) Stop() {
	if p.stop != nil {
		close(p.stop)
		<-p.stopped
		p.stop = nil
	}
	p.mu.Lock()
	p.drawn = 0
	p.mu.Unlock()
}

// redraw rewrites the header and one line per pod over the previous ones.
func (p *Progress) redraw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	pods := p.snapshot()
	elapsed := time.Since(p.start)
	var b strings.Builder
	if p.drawn > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", p.drawn)
	}
	lines := []string{header(p.node, pods, elapsed)}
	for _, pp := range pods {
		// Each pod's own time since its first eviction request.
		lines = append(lines, progressLine(pp, time.Duration(pp.DurationSeconds*float64(time.Second)), 0))
	}
	for _, l := range lines {
		if p.width > 1 && len([]rune(l)) >= p.width {
			l = string([]rune(l)[:p.width-1])
		}
		b.WriteString("\r\x1b[K" + l + "\n")
	}
	p.drawn = len(lines)
	_, _ = io.WriteString(p.out, b.String())
}

// snapshot returns the pods' progress sorted by namespace and name, each
// duration brought up to now until the pod's state is final (gone,
// failed, not evicted), as the drain's own durations stop.
func (p *Progress) snapshot() []drain.PodProgress {
	out := make([]drain.PodProgress, 0, len(p.pods))
	for _, key := range slices.Sorted(maps.Keys(p.pods)) { // namespace/name
		pp := p.pods[key]
		switch pp.State {
		case drain.StateGone, drain.StateFailed, drain.StateStopped:
		default:
			if pp.StartedSeconds > 0 {
				pp.DurationSeconds = time.Since(p.start).Seconds() - pp.StartedSeconds
			}
		}
		out = append(out, pp)
	}
	return out
}

// header counts pods per state.
func header(node string, pods []drain.PodProgress, elapsed time.Duration) string {
	counts := map[drain.State]int{}
	for _, pp := range pods {
		counts[pp.State]++
	}
	return fmt.Sprintf("draining node %s: %d/%d gone, %d terminating, %d blocked, elapsed %s",
		termsafe.Escape(node), counts[drain.StateGone], len(pods), counts[drain.StateTerminating], counts[drain.StateBlocked],
		elapsed.Round(100*time.Millisecond))
}

// noClock is the elapsed time of a progress line whose writer stamps each
// line with a clock of its own (drain node --watch): one clock a line.
const noClock time.Duration = -1

// progressLine is one pod's line: a time (since the node's drain started in
// plain lines, since the pod's first eviction when redrawn; none for
// noClock), pod (elided to nameWidth columns when not 0), state, cause.
func progressLine(pp drain.PodProgress, elapsed time.Duration, nameWidth int) string {
	name := termsafe.Escape(pp.Namespace + "/" + pp.Name)
	if nameWidth > 0 {
		name = trender.ElideName(name, nameWidth)
	}
	line := fmt.Sprintf("%-40s %-12s", name, words(pp.State))
	if elapsed != noClock {
		line = fmt.Sprintf("%8s  ", fmt.Sprintf("+%.1f s", elapsed.Seconds())) + line
	}
	if pp.GoneBy != "" && pp.GoneBy != drain.GoneByEviction {
		line += " (" + goneByText(pp.GoneBy) + ")"
	}
	if pp.Attempts > 1 {
		line += fmt.Sprintf(" (attempt %d)", pp.Attempts)
	}
	if pp.Cause != "" {
		line += " " + termsafe.Escape(pp.Cause)
	}
	return strings.TrimRight(line, " ")
}
