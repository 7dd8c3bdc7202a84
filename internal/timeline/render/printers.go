package render

import (
	"fmt"
	"io"
	"regexp"

	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// PodLinePrinter returns the timeline.Printer of the text output: a
// LinePrinter on out, its lines whole when wide.
func PodLinePrinter(out io.Writer, wide bool) timeline.Printer {
	p := &LinePrinter{W: out, Wide: wide}
	return timeline.Printer{Event: p.Event, Gap: p.Gap, Note: p.Note, Requests: p.Requests}
}

// PodJSONPrinter returns the timeline.Printer of -o json: a JSONPrinter on
// out.
func PodJSONPrinter(out io.Writer) timeline.Printer {
	p := JSONPrinter{W: out}
	return timeline.Printer{Event: p.Event, Gap: p.Gap, Note: p.Note, Requests: p.Requests}
}

// LinePrinter prints each event, gap and note as a line as it happens. An
// Event repeated (the same reason and message, from one Event object's
// count or from many objects) is folded: its lines after the third are
// printed only when its count reaches 5, 10, 20, 50, 100, ... and say how
// many were seen, so that a pod with 5,000 Events cannot flood the
// terminal (-o json keeps every one). A line fits LineWidth columns, its
// message cut (a note wrapped), unless Wide.
type LinePrinter struct {
	W     io.Writer
	Wide  bool
	times map[string]int
}

// Event prints a change.
func (p *LinePrinter) Event(tl *timeline.Timeline, e timeline.Event) {
	if !p.Wide && followsExit(e) {
		return
	}
	if e.Kind != timeline.KindOtherEvent && e.Kind != timeline.KindUnhealthy {
		_ = WriteLine(p.W, tl, e, p.Wide)
		if e.Kind == timeline.KindKilling {
			_ = WritePreStopWait(p.W, tl, e, p.Wide)
		}
		return
	}
	if p.times == nil {
		p.times = map[string]int{}
	}
	key := string(e.Kind) + "\x00" + repeatSuffix.ReplaceAllString(e.Message, "")
	p.times[key]++
	n := p.times[key]
	if !shownRepeat(n) {
		return
	}
	var tail string
	if n > 3 {
		tail = fmt.Sprintf(" [seen %d times; repeats folded]", n)
	}
	_ = writeEventLine(p.W, tl, e, tail, p.Wide)
}

// repeatSuffix is the " (xN)" the recorder adds for an Event's count.
var repeatSuffix = regexp.MustCompile(` \(x[0-9]+\)$`)

// shownRepeat reports whether the n-th line of one Event is printed: the
// first three, then at 5, 10, 20, 50, 100, 200, 500, ...
func shownRepeat(n int) bool {
	if n <= 3 {
		return true
	}
	for d := 1; d <= n; d *= 10 {
		if n == 5*d || n == 10*d || n == 20*d {
			return true
		}
	}
	return false
}

// Gap prints a gap's opening or closing.
func (p LinePrinter) Gap(tl *timeline.Timeline, g timeline.Gap) {
	_ = WriteGapLine(p.W, tl, g, p.Wide)
}

// Note prints a remark, wrapped to LineWidth columns unless Wide.
func (p LinePrinter) Note(_ *timeline.Timeline, msg string) {
	_ = writeNote(p.W, msg, LineWidth, p.Wide)
}

// JSONPrinter prints one JSON object per line as things happen.
type JSONPrinter struct{ W io.Writer }

// Event prints a change.
func (p JSONPrinter) Event(tl *timeline.Timeline, e timeline.Event) { _ = WriteJSONEvent(p.W, tl, e) }

// Gap prints a gap's opening or closing.
func (p JSONPrinter) Gap(tl *timeline.Timeline, g timeline.Gap) { _ = WriteJSONGap(p.W, tl, g) }

// Note prints a remark.
func (p JSONPrinter) Note(_ *timeline.Timeline, msg string) {
	_ = termsafe.NewJSONEncoder(p.W).Encode(noteJSON(msg))
}
