package drain

import (
	"context"
	"strings"
	"time"

	kdrain "k8s.io/kubectl/pkg/drain"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/eviction"
)

// Backoff is the wait between two requests for one pod after a refusal
// (a PodDisruptionBudget's 429, throttling, a terminating namespace) or a
// failure: Base*2^(n-1) before retry n, capped at Cap. After a budget's 429
// the wait ends early once the budget's watch shows it allowing a
// disruption; a throttling answer's Retry-After lengthens it; the end of
// the context ends it at once.
type Backoff struct {
	// Base is the first delay; must be > 0.
	Base time.Duration
	// Cap is the longest delay between two requests for one pod.
	Cap time.Duration
}

// delay returns the whole wait before retry number n (n >= 1).
func (b Backoff) delay(n int) time.Duration {
	d := b.Base
	for i := 1; i < n && d < b.Cap; i++ {
		d *= 2
	}
	return min(d, b.Cap)
}

// retryTransient calls fn until it succeeds or fails for a reason that is not
// transient (eviction.Transient: an API server restarting, a connection
// reset), waiting b.delay(n) between calls, or a throttling answer's
// Retry-After when longer: a short outage delays the drain instead of
// failing it. When ctx ends it returns fn's last error. A final error while
// ctx is live goes to f (note; nil keeps none).
func retryTransient[T any](ctx context.Context, b Backoff, f *apiFailures, fn func() (T, error)) (T, error) {
	for n := 1; ; n++ {
		v, err := fn()
		if !eviction.Transient(err) || !sleep(ctx, max(b.delay(n), eviction.Read(err).RetryAfter)) {
			if ctx.Err() == nil {
				f.note(err)
			}
			return v, err
		}
	}
}

// podsForDeletion lists the pods of node the drain evicts, with kubectl's
// own filters (helper), retrying the list through a short outage. The
// library returns the list's error as the client gave it (a filter's
// refusal comes with a list).
func (d *nodeRun) podsForDeletion(ctx context.Context, node string) (*kdrain.PodDeleteList, []error) {
	var errs []error
	list, _ := retryTransient(ctx, d.Backoff, d.failures, func() (*kdrain.PodDeleteList, error) {
		var list *kdrain.PodDeleteList
		list, errs = d.helper(ctx).GetPodsForDeletion(node)
		if list == nil && len(errs) == 1 {
			return nil, errs[0]
		}
		return list, nil
	})
	for _, err := range errs {
		if strings.Contains(err.Error(), "would exceed context deadline") {
			// client-go's rate limiter refused to wait past ctx's deadline
			// (golang.org/x/time/rate's Wait): ctx ends sooner than that
			// wait, and the caller must read a stop there, not a failed list.
			<-ctx.Done()
			break
		}
	}
	return list, errs
}

// sleep waits d and reports true, or false at once when ctx ends first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
