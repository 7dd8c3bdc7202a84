package probe

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
)

// classify maps a transport error to its Kind.
func classify(err error) Kind {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded),
		errors.As(err, &ne) && ne.Timeout():
		return Timeout
	case errors.Is(err, syscall.ECONNREFUSED):
		return Refused
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), isEOF(err):
		return Reset
	}
	return Other
}

// isEOF is a connection closed by the server before a whole answer.
func isEOF(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}
