package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// exitInterruptedTwice is the exit status after a second SIGINT or SIGTERM:
// 128 + SIGINT, what a shell reports for a command killed by Ctrl-C.
const exitInterruptedTwice = 130

// stopNote says what a command still does once interrupted: waiting is
// what it waits for before it exits ("2 evictions in flight"), skipped what
// a second interrupt would skip ("the summary"), left what a second
// interrupt leaves changed on the cluster without a summary to say so
// ("left cordoned: a b (...)"; "" when nothing), already escaped.
type stopNote struct {
	waiting string
	skipped string
	left    string
}

// interrupt turns SIGINT and SIGTERM into the cancellation of the
// command's context, for every command, in one place. The first signal
// cancels the context and says at once on stderr what the command still
// waits for; the second exits at once with exitInterruptedTwice.
type interrupt struct {
	errOut io.Writer
	exit   func(code int)
	cancel context.CancelFunc

	mu    sync.Mutex
	count int
	note  func() stopNote
}

// listen returns a context cancelled by the first SIGINT or SIGTERM and a
// function that stops listening.
func (in *interrupt) listen(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	in.cancel = cancel
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-sigs:
				in.signalled()
			case <-done:
				return
			}
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}

// onStop tells in, when there is one (tests build commands without),
// what the command waits for once stopped; note is called when the first
// signal arrives, from another goroutine.
func (in *interrupt) onStop(note func() stopNote) {
	if in == nil {
		return
	}
	in.mu.Lock()
	in.note = note
	in.mu.Unlock()
}

// signalled handles one SIGINT or SIGTERM.
func (in *interrupt) signalled() {
	in.mu.Lock()
	in.count++
	count, note := in.count, stopNote{waiting: "what is in flight", skipped: "waiting"}
	if in.note != nil {
		note = in.note()
	}
	in.mu.Unlock()
	if count == 1 {
		fmt.Fprintf(in.errOut, "stopping: waiting for %s; Ctrl-C again to exit without %s\n", note.waiting, note.skipped)
		in.cancel()
		return
	}
	fmt.Fprintf(in.errOut, "interrupted again: exiting at once, without %s (exit status %d)\n", note.skipped, exitInterruptedTwice)
	if note.left != "" {
		fmt.Fprintln(in.errOut, note.left)
	}
	in.exit(exitInterruptedTwice)
}
