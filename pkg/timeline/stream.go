package timeline

import "context"

// EndReason names why a watch whose ctx ended stopped: "timeout" at its
// deadline, "interrupted" otherwise (Ctrl-C), or done when it had already
// reached its end and was only settling.
func EndReason(ctx context.Context, settling bool, done string) string {
	switch {
	case settling:
		return done
	case ctx.Err() == context.DeadlineExceeded:
		return "timeout"
	}
	return "interrupted"
}
