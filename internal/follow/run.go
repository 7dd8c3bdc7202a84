package follow

import (
	"context"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/probe"
)

// Progress is where a follower stands after a notice.
type Progress int

const (
	// Following: something is still to be seen.
	Following Progress = iota
	// Finished: nothing is left; Run returns once the settle time passed
	// with no Following in between (late Events, EndpointSlice updates).
	Finished
	// Stopped: end now, without settling (a stalled rollout).
	Stopped
)

// Follower is what one watch supplies: its streams and what it does with
// them. Run calls every func from one goroutine; Streams, Handle and
// Progress are required.
type Follower struct {
	Streams []*listwatch.Stream
	// Handle takes one notice, in the order its stream delivered it. An
	// error ends Run with that error.
	Handle func(ctx context.Context, n listwatch.Notice) error
	// Listed, when set, is called once, after the notice with which every
	// stream had its first List or failed: from then on every change is
	// seen from its start, and the follower may act (delete, evict,
	// restart). A wait above zero asks for Retry after it.
	Listed func(ctx context.Context) (wait time.Duration, err error)
	// Progress is asked after each notice; settle is how long to keep
	// listening when Finished. Before Listed has run only Stopped counts:
	// nothing is finished that was not yet fully seen.
	Progress func() (p Progress, settle time.Duration, err error)
	// Publish, when set, is given every notice before Handle (a Hub's
	// Publish, for readers that share the streams).
	Publish func(listwatch.Notice)
	// Retry is called when the wait Listed or Retry returned is over.
	Retry func(ctx context.Context) (wait time.Duration, err error)
	// Requests are the probe's buckets, each given to OnRequests as it
	// comes; nil without a probe.
	Requests   <-chan probe.Bucket
	OnRequests func(probe.Bucket)
}

// End says why Run returned without an error of the follower's.
type End int

const (
	// Settled: the follower was Finished for its whole settle time, or
	// ctx ended while it was only settling: its end was reached.
	Settled End = iota + 1
	// Halted: the follower said Stopped.
	Halted
	// TimedOut: ctx's deadline (--timeout) passed while something was
	// still followed.
	TimedOut
	// Interrupted: ctx was cancelled (Ctrl-C, or the caller: see
	// context.Cause) while something was still followed.
	Interrupted
)

// Run starts every stream and hands their notices to f until f is done,
// f fails, or ctx ends; the streams stop when it returns.
func Run(ctx context.Context, f Follower) (End, error) {
	streamCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	notices := make(chan listwatch.Notice)
	l := loop{Follower: f, unlisted: map[string]bool{}}
	for _, s := range f.Streams {
		l.unlisted[s.Name] = true
		go s.Run(streamCtx, notices)
	}
	return l.run(ctx, notices)
}

// loop is Run's state, touched by Run's goroutine alone.
type loop struct {
	Follower
	unlisted map[string]bool
	listed   bool
	finished bool
	settle   <-chan time.Time
	retry    <-chan time.Time
}

func (l *loop) run(ctx context.Context, notices <-chan listwatch.Notice) (End, error) {
	for {
		select {
		case n := <-notices:
			if end, err := l.notice(ctx, n); end != 0 || err != nil {
				return end, err
			}
		case <-l.retry:
			wait, err := l.Retry(ctx)
			if err != nil {
				return 0, err
			}
			l.retryAfter(wait)
		case b := <-l.Requests:
			l.OnRequests(b)
		case <-l.settle:
			return Settled, nil
		case <-ctx.Done():
			switch {
			case l.finished:
				return Settled, nil
			case ctx.Err() == context.DeadlineExceeded:
				return TimedOut, nil
			}
			return Interrupted, nil
		}
	}
}

// notice hands n to the follower, calls Listed once every stream is
// listed, and starts or cancels the settle time as the follower's
// progress says; a non-zero End ends Run.
func (l *loop) notice(ctx context.Context, n listwatch.Notice) (End, error) {
	if l.Publish != nil {
		l.Publish(n)
	}
	if err := l.Handle(ctx, n); err != nil {
		return 0, err
	}
	if (n.Kind == listwatch.KindList && n.Initial) || n.Kind == listwatch.KindError {
		delete(l.unlisted, n.Stream)
	}
	if !l.listed && len(l.unlisted) == 0 {
		l.listed = true
		if l.Listed != nil {
			wait, err := l.Listed(ctx)
			if err != nil {
				return 0, err
			}
			l.retryAfter(wait)
		}
	}
	p, settle, err := l.Progress()
	switch {
	case err != nil:
		return 0, err
	case p == Stopped:
		return Halted, nil
	case !l.listed:
	case p == Finished && !l.finished:
		l.finished, l.settle = true, time.After(settle)
	case p == Following:
		l.finished, l.settle = false, nil
	}
	return 0, nil
}

// retryAfter schedules Retry after wait, when above zero.
func (l *loop) retryAfter(wait time.Duration) {
	l.retry = nil
	if wait > 0 {
		l.retry = time.After(wait)
	}
}
