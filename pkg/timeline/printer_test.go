package timeline

import (
	"context"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/callback"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/probe"
)

// TestZeroPrinterIsSafe records a termination's changes through a follower
// with the zero Printer and with one that sets only Event: nothing panics,
// and the timeline still holds what was seen.
func TestZeroPrinterIsSafe(t *testing.T) {
	var events int
	for name, p := range map[string]Printer{"zero": {}, "event only": {Event: func(*Timeline, Event) { events++ }}} {
		f := &follower{cfg: Config{Printer: p}, rec: NewRecorder(testPod(30, nil), nil, at(0))}
		f.rec.Emit = func(e Event) { callback.Call(f.cfg.Printer.Event, f.rec.TL, e) }
		f.rec.Stall = func(g Gap) { callback.Call(f.cfg.Printer.Gap, f.rec.TL, g) }
		f.rec.MarkT0(at(0), T0DeleteSent, "DELETE sent")
		_ = f.handle(context.Background(), listwatch.Notice{Stream: StreamEvents, Recv: at(10), Kind: listwatch.KindGapOpen, Reason: "cut"})
		f.say("a note")
		f.requests(probe.Bucket{From: at(20), Results: []probe.Result{{Kind: probe.Reset}}})
		if tl := f.rec.TL; len(tl.Events) != 1 || len(tl.Requests) != 1 || len(tl.Gaps) != 1 {
			t.Errorf("%s: events %d requests %d gaps %d, want 1 each", name, len(tl.Events), len(tl.Requests), len(tl.Gaps))
		}
	}
	if events != 1 {
		t.Errorf("Event called %d times, want 1", events)
	}
}
