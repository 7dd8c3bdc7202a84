package rollout

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/probe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// TestZeroPrinterIsSafe follows a rollout's changes with the zero Printer
// and with one that sets only Note: nothing panics, and the Rollout still
// records what was seen.
func TestZeroPrinterIsSafe(t *testing.T) {
	var notes []string
	for name, p := range map[string]Printer{"zero": {}, "note only": {Note: func(_ *Rollout, m string) { notes = append(notes, m) }}} {
		f, slice, _ := followerOf(3, p)
		s := slice.DeepCopy()
		s.Endpoints[0].Conditions.Ready, s.Endpoints[0].Conditions.Terminating = timelinetest.Bool(false), timelinetest.Bool(true)
		if err := f.handle(context.Background(), listwatch.Notice{Stream: timeline.StreamEndpointSlices, Recv: time.Now(), Kind: listwatch.KindEvent, Event: &watch.Event{Type: watch.Modified, Object: s}}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		_ = f.handle(context.Background(), listwatch.Notice{Stream: timeline.StreamEvents, Recv: time.Now(), Kind: listwatch.KindGapOpen, Reason: "cut"})
		f.status(time.Now(), "web-0", "restart sent")
		f.note("a note")
		f.requests(probe.Bucket{From: time.Now(), Results: []probe.Result{{Kind: probe.Refused}}})
		if len(f.r.Status) != 1 || len(f.r.Notes) != 1 || len(f.r.Requests) != 1 || len(f.r.Gaps) != 1 {
			t.Errorf("%s: status %d notes %d requests %d gaps %d, want 1 each", name, len(f.r.Status), len(f.r.Notes), len(f.r.Requests), len(f.r.Gaps))
		}
	}
	if len(notes) == 0 || notes[len(notes)-1] != "a note" {
		t.Errorf("notes %q, want the note last", notes)
	}
}
