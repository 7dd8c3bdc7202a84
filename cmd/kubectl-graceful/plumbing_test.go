package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
)

// testInterrupt is an interrupt writing to errOut whose exit records the
// code in *exited (-1 until then), with the context it cancels.
func testInterrupt(t *testing.T) (ctx context.Context, in *interrupt, errOut *bytes.Buffer, exited *int) {
	errOut, exited = &bytes.Buffer{}, new(int)
	*exited = -1
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	in = &interrupt{errOut: errOut, exit: func(code int) { *exited = code }, cancel: cancel}
	return ctx, in, errOut, exited
}

func TestInterruptFirstStopsSecondExits(t *testing.T) {
	ctx, in, errOut, exitedAt := testInterrupt(t)
	in.onStop(func() stopNote { return stopNote{waiting: "2 evictions in flight", skipped: "the summary"} })

	in.signalled()
	if ctx.Err() == nil {
		t.Fatal("the first signal did not cancel the command's context")
	}
	if want := "stopping: waiting for 2 evictions in flight; Ctrl-C again to exit without the summary\n"; errOut.String() != want {
		t.Errorf("after the first signal stderr is %q, want %q", errOut.String(), want)
	}
	if *exitedAt != -1 {
		t.Fatalf("the first signal exited with %d", *exitedAt)
	}
	errOut.Reset()
	in.signalled()
	if *exitedAt != exitInterruptedTwice {
		t.Errorf("the second signal exited with %d, want %d", *exitedAt, exitInterruptedTwice)
	}
	if !strings.Contains(errOut.String(), "without the summary") {
		t.Errorf("the second signal's message %q does not say the summary is skipped", errOut.String())
	}
}

func TestInterruptWithoutNote(t *testing.T) {
	var errOut bytes.Buffer
	_, cancel := context.WithCancel(context.Background())
	in := &interrupt{errOut: &errOut, exit: func(int) {}, cancel: cancel}
	in.signalled()
	if !strings.HasPrefix(errOut.String(), "stopping: ") {
		t.Errorf("stderr %q, want a stopping line", errOut.String())
	}
}

func TestValidateOutput(t *testing.T) {
	cases := []struct {
		value   string
		formats []string
		want    string // "" = valid
	}{
		{"", []string{"", "json"}, ""},
		{"json", []string{"", "json"}, ""},
		{"yaml", []string{"", "json"}, `--output "yaml" is not supported for drain node: use json, or leave it out`},
		{"", []string{"table", "json"}, `--output "" is not supported for drain node: use table, json`},
	}
	for _, c := range cases {
		err := validateOutput("drain node", c.value, c.formats...)
		if got := errText(err); got != c.want {
			t.Errorf("validateOutput(%q, %v) = %q, want %q", c.value, c.formats, got, c.want)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestTerminalIsFalseForBuffersAndPipes(t *testing.T) {
	if tty, width := terminal(&bytes.Buffer{}); tty || width != 0 {
		t.Errorf("a buffer is a terminal of width %d", width)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if tty, width := terminal(w); tty || width != 0 {
		t.Errorf("a pipe is a terminal of width %d", width)
	}
}

func TestDrainStopNoteCountsEvictionsInFlight(t *testing.T) {
	w := newDrainWatcher()
	if got := w.stopNote().waiting; got != "the reads in flight, then the summary" {
		t.Errorf("before any eviction: %q", got)
	}
	w.EvictionsStarted("n1", []drain.PodProgress{
		{Namespace: "shop", Name: "a", State: drain.StatePending},
		{Namespace: "shop", Name: "b", State: drain.StatePending},
	})
	if got := w.stopNote().waiting; !strings.HasPrefix(got, "the summary (no eviction is in flight") {
		t.Errorf("nothing in flight: %q", got)
	}
	w.PodChanged("n1", drain.PodProgress{Namespace: "shop", Name: "a", State: drain.StateEvicting})
	if got := w.stopNote().waiting; !strings.HasPrefix(got, "1 eviction in flight") {
		t.Errorf("one request out: %q", got)
	}
}
