package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-graceful/kubectl-graceful/internal/probe"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/eviction"
)

// begin is what the pod, rollout and node watches do before they follow:
// say on Ctrl-C what is waited for (note), and bound ctx by --timeout (0:
// no limit). The caller defers cancel.
func (f *watchFlags) begin(ctx context.Context, note stopNote) (context.Context, context.CancelFunc) {
	if ctx == nil {
		ctx = context.Background()
	}
	f.interrupt.onStop(func() stopNote { return note })
	return eviction.WithTimeout(ctx, f.timeout)
}

// followProbed is the Run of the pod and rollout watches: begin, start
// the --probe requests (after a baseline when acts: the command deletes,
// evicts, restarts or scales), follow while they run, stop them, attribute
// their failures from --probe-access-log (results are those follow
// recorded), then end with what follow returned. A probe that does not
// start is the error.
func followProbed[R any](ctx context.Context, f *watchFlags, note stopNote, acts bool,
	follow func(context.Context, *probing) (R, error), results func(R) []probe.Result, end func(context.Context, R, error) error) error {
	ctx, cancel := f.begin(ctx, note)
	defer cancel()
	pr, err := f.probe.start(ctx, f.ErrOut, acts)
	if err != nil {
		return err
	}
	r, err := follow(ctx, pr)
	pr.Stop()
	if any(r) != any(*new(R)) { // R is a pointer, nil when nothing was followed
		pr.attribute(results(r), f.ErrOut)
	}
	return end(ctx, r, err)
}

// watchSink is where a watch writes, by -o, the same for the pod, rollout
// and node watches: json and yaml documents to doc, a Mermaid chart to
// out with the live lines and the verdict on errOut, else everything to
// out.
type watchSink struct {
	output           string
	out, errOut, doc io.Writer
	// width is the terminal's columns without -o, 0 when out is not a
	// terminal: the tables fit it, and out breaks longer lines (lineFitter).
	width int
}

// printer returns the live printer: the JSON one on doc, or the line
// printer on the stream the lines go to.
func printer[P any](s watchSink, json func(io.Writer) P, lines func(io.Writer) P) P {
	switch s.output {
	case "json", "yaml":
		return json(s.doc)
	case "mermaid":
		return lines(s.errOut)
	}
	return lines(s.out)
}

// watchSummary is how one watch writes its end (of what W, judged by V).
type watchSummary[W, V any] struct {
	json, verdict, mermaid func(io.Writer, W, V) error
	// text are the parts of the summary without -o, in order.
	text []func(io.Writer, W, V) error
}

// write writes the summary of w and v to s.
func (m watchSummary[W, V]) write(s watchSink, w W, v V) error {
	switch s.output {
	case "json", "yaml":
		return m.json(s.doc, w, v)
	case "mermaid":
		if err := m.verdict(s.errOut, w, v); err != nil {
			return err
		}
		return m.mermaid(s.out, w, v)
	}
	for _, write := range m.text {
		if err := write(s.out, w, v); err != nil {
			return err
		}
	}
	return nil
}

// newWatchSink is the sink of -o output on streams.
func newWatchSink(output string, streams genericiooptions.IOStreams) watchSink {
	s := watchSink{output: output, out: streams.Out, errOut: streams.ErrOut, doc: documentWriter(streams.Out, output)}
	if tty, width := terminal(streams.Out); tty && width > 0 && output == "" {
		s.out, s.width = lineFitter{w: streams.Out, width: width}, width
	}
	return s
}

// endedBeforeStart words the error of a watch whose ctx ended (Ctrl-C,
// --timeout) before its first reads answered, so before anything was
// sent: the client's "context canceled" or the stall detector's "no answer
// within 0s" would blame the cluster for the reader's own stop. what is
// what was being read ("pod NAMESPACE/NAME"). Any other error, one from
// before ctx ended, and a stall that had time to be one (a credential
// plugin's, a server's of 0.1 s or more) is err as is.
func endedBeforeStart(ctx context.Context, err error, what string) error {
	if err == nil || ctx.Err() == nil || apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
		return err
	}
	var plugin *pluginStalled
	var server *serverStalled
	if errors.As(err, &plugin) || errors.As(err, &server) && roundWait(server.waited) > 0 {
		return err
	}
	if t := (*eviction.TimeoutError)(nil); errors.As(context.Cause(ctx), &t) {
		return fmt.Errorf("%w before reading %s: nothing was sent", t, what)
	}
	return fmt.Errorf("interrupted before reading %s: nothing was sent", what)
}
