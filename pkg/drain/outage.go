package drain

import (
	"context"
	"fmt"
	"time"
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
// 30 s: a short outage before the cordon delays the drain instead of
// failing it. It returns at once when ctx ends (Ctrl-C), with read's last
// error; when the 30 s pass, with an error saying so that wraps it. b with
// no Base retries every 200 ms up to every 2 s.
func ThroughOutage[T any](ctx context.Context, b Backoff, read func(context.Context) (T, error)) (T, error) {
	if b.Base <= 0 {
		b = Backoff{Base: 200 * time.Millisecond, Cap: 2 * time.Second}
	}
	octx, cancel := context.WithTimeout(ctx, outageWait)
	defer cancel()
	v, err := retryTransient(octx, b, nil, func() (T, error) { return read(octx) })
	if err != nil && ctx.Err() == nil && octx.Err() != nil {
		return v, fmt.Errorf("the API server did not answer for %s: %w", outageWait, err)
	}
	return v, err
}
