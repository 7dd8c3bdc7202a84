package probe

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
)

// classify maps a transport error to its Kind; connected tells whether a
// connection was set up before it.
func classify(err error, connected bool) Kind {
	var ne net.Error
	switch {
	case !connected && (errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH)):
		return NoAnswer
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded),
		errors.As(err, &ne) && ne.Timeout():
		if !connected {
			return NoAnswer
		}
		return Timeout
	case errors.Is(err, syscall.ECONNREFUSED):
		return Refused
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		// A connection closed by the server before a whole answer.
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return Reset
	}
	return Other
}
