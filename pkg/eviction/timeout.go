package eviction

import (
	"context"
	"time"
)

// TimeoutError is the error of a drain or watch that its --timeout ended,
// and the cause (context.Cause) of the context WithTimeout returns:
// errors.As(context.Cause(ctx), &te) tells a --timeout from another end
// (Ctrl-C, the parent's).
type TimeoutError struct {
	// Timeout is the --timeout that was reached.
	Timeout time.Duration
}

// Error says which --timeout was reached.
func (e *TimeoutError) Error() string { return "--timeout " + e.Timeout.String() + " reached" }

// WithTimeout returns a context that ends after d with a *TimeoutError as
// its cause; d <= 0 means no limit (the context only ends with parent).
func WithTimeout(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(parent)
	}
	return context.WithTimeoutCause(parent, d, &TimeoutError{Timeout: d})
}
