package render

import (
	"io"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/termsafe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// LinePrinter prints each event, gap and note as a line as it happens.
type LinePrinter struct{ W io.Writer }

// Event implements Printer.
func (p LinePrinter) Event(tl *timeline.Timeline, e timeline.Event) { _ = WriteLine(p.W, tl, e) }

// Gap implements Printer.
func (p LinePrinter) Gap(tl *timeline.Timeline, g timeline.Gap) { _ = WriteGapLine(p.W, tl, g) }

// Note implements Printer.
func (p LinePrinter) Note(_ *timeline.Timeline, msg string) {
	_, _ = io.WriteString(p.W, "note: "+termsafe.Escape(msg)+"\n")
}

// JSONPrinter prints one JSON object per line as things happen.
type JSONPrinter struct{ W io.Writer }

// Event implements Printer.
func (p JSONPrinter) Event(tl *timeline.Timeline, e timeline.Event) { _ = WriteJSONEvent(p.W, tl, e) }

// Gap implements Printer.
func (p JSONPrinter) Gap(tl *timeline.Timeline, g timeline.Gap) { _ = WriteJSONGap(p.W, tl, g) }

// Note implements Printer.
func (p JSONPrinter) Note(_ *timeline.Timeline, msg string) {
	_ = termsafe.NewJSONEncoder(p.W).Encode(struct {
		Type    string    `json:"type"`
		Local   time.Time `json:"localTime"`
		Message string    `json:"message"`
	}{"note", time.Now().Round(0), msg})
}
