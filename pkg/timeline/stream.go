package timeline

import "context"

// EndReason names why a watch whose ctx ended stopped: EndedTimeout at
// its deadline, EndedInterrupted otherwise (Ctrl-C), or done when it had
// already reached its end and was only settling.
func EndReason(ctx context.Context, settling bool, done Ended) Ended {
	switch {
	case settling:
		return done
	case ctx.Err() == context.DeadlineExceeded:
		return EndedTimeout
	}
	return EndedInterrupted
}
