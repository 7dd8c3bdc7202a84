package drain

import (
	"context"
	"fmt"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/eviction"
)

// outageWait is how long the reads made before anything changes (the node
// lookup, the preflight's Gather) keep retrying through an API server that
// is unreachable or failing before the drain gives up (exit 1, nothing
// changed): an API server restart takes seconds, a control-plane upgrade
// rolls one server at a time.
var outageWait = 30 * time.Second

// ThroughOutage calls read until it succeeds or fails for a reason that is
// not transient (eviction.Transient: a transport error, a 5xx, a 429
// without a budget cause), waiting b's delays between calls, for at most
// 30 s: a short outage before the cordon delays the
// drain instead of failing it. Failing credentials (eviction.Credentials,
// a credential plugin that did not answer included) end it at once with
// their own error, never "did not answer". b with no Base retries every 200 ms up to every 2 s.
//
// A throttling answer (429 without a budget cause, from API Priority and
// Fairness) is an answer, not an outage: the next call waits at least its
// Retry-After, and one that ends past the 30 s moves them on (the call
// after it gets 30 s of its own), until timeout (the drain's --timeout; 0
// is no limit). A wait that timeout does not allow ends it at once with an
// error that says "throttled by the API server", never "did not answer".
//
// It returns at once when ctx ends (Ctrl-C), with read's last error; when
// the 30 s pass without an answer, with an error saying so that wraps it.
func ThroughOutage[T any](ctx context.Context, b Backoff, timeout time.Duration, read func(context.Context) (T, error)) (T, error) {
	if b.Base <= 0 {
		b = Backoff{Base: 200 * time.Millisecond, Cap: 2 * time.Second}
	}
	w := newOutageWindow(timeout)
	for n := 1; ; n++ {
		octx, cancel := context.WithDeadline(ctx, w.deadline)
		v, err := read(octx)
		expired := octx.Err() != nil
		cancel()
		if err == nil || ctx.Err() != nil || eviction.Credentials(err) || !expired && !eviction.Transient(err) {
			return v, err
		}
		wait, gerr := w.next(err, b.delay(n), expired)
		if gerr != nil {
			return v, gerr
		}
		if !sleep(ctx, wait) {
			return v, err
		}
	}
}

// outageWindow is how long ThroughOutage may still retry.
type outageWindow struct {
	// deadline ends the retries through an outage: 30 s after the start
	// or after the end of the last Retry-After waited for.
	deadline time.Time
	// window is how long the first call may go without an answer: 30 s.
	window time.Duration
	// limit is the start plus timeout; zero when there is no limit.
	limit   time.Time
	timeout time.Duration
	// last is the last error that was an answer or a failure, not the
	// context ending: the one a give-up wraps.
	last error
}

func newOutageWindow(timeout time.Duration) *outageWindow {
	now := time.Now()
	w := &outageWindow{deadline: now.Add(outageWait), window: outageWait, timeout: timeout}
	if timeout > 0 {
		// --timeout is each node's turn (kubectl's meaning): it bounds
		// the throttling waits here, not the 30 s window for an outage,
		// so that a turn a short --timeout ends is summarised as timed
		// out by the drain, not failed as an outage; --request-timeout
		// bounds each read.
		w.limit = now.Add(timeout)
	}
	return w
}

// next returns the wait before the next call after err (delay, the
// backoff's, or a throttling answer's Retry-After when longer), or the
// error that ends the retries: the window passed (expired: the call itself
// ran out of it), or a throttling wait past the limit.
func (w *outageWindow) next(err error, delay time.Duration, expired bool) (time.Duration, error) {
	if !expired || w.last == nil {
		w.last = err
	}
	a := eviction.Read(w.last)
	now := time.Now()
	if a.Kind == eviction.Throttled && !expired {
		wait := max(delay, a.RetryAfter)
		if !w.limit.IsZero() && now.Add(wait).After(w.limit) {
			return 0, fmt.Errorf("throttled by the API server (HTTP 429): it asked to wait %s (Retry-After) before the next request, past --timeout %s: %w",
				a.RetryAfter, w.timeout, w.last)
		}
		if end := now.Add(wait); end.Add(outageWait).After(w.deadline) {
			w.deadline = end.Add(outageWait)
		}
		return wait, nil
	}
	if expired || !now.Before(w.deadline) {
		if a.Kind == eviction.Throttled {
			return 0, fmt.Errorf("throttled by the API server (HTTP 429), then no answer for %s: %w", w.window, w.last)
		}
		return 0, fmt.Errorf("the API server did not answer for %s: %w", w.window, w.last)
	}
	return min(delay, time.Until(w.deadline)), nil
}
