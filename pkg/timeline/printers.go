package timeline

import (
	"io"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/termsafe"
)

// LinePrinter prints each event, gap and note as a line as it happens.
type LinePrinter struct{ W io.Writer }

// Event implements Printer.
func (p LinePrinter) Event(tl *Timeline, e Event) { _ = WriteLine(p.W, tl, e) }

// Gap implements Printer.
func (p LinePrinter) Gap(tl *Timeline, g Gap) { _ = WriteGapLine(p.W, tl, g) }

// Note implements Printer.
func (p LinePrinter) Note(_ *Timeline, msg string) {
	_, _ = io.WriteString(p.W, "note: "+termsafe.Escape(msg)+"\n")
}

// JSONPrinter prints one JSON object per line as things happen.
type JSONPrinter struct{ W io.Writer }

// Event implements Printer.
func (p JSONPrinter) Event(tl *Timeline, e Event) { _ = WriteJSONEvent(p.W, tl, e) }

// Gap implements Printer.
func (p JSONPrinter) Gap(tl *Timeline, g Gap) { _ = WriteJSONGap(p.W, tl, g) }

// Note implements Printer.
func (p JSONPrinter) Note(_ *Timeline, msg string) {
	_ = termsafe.NewJSONEncoder(p.W).Encode(struct {
		Type    string    `json:"type"`
		Local   time.Time `json:"localTime"`
		Message string    `json:"message"`
	}{"note", time.Now().Round(0), msg})
}
