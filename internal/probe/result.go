package probe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"time"
)

// Kind classifies one request's outcome. The values appear in -o json, in
// kebab-case; Label gives the words the text output prints.
type Kind string

// The kinds of outcome. A request is OK when it got a 2xx or 3xx answer.
const (
	OK      Kind = "ok"
	Status  Kind = "status"             // an HTTP answer outside 2xx/3xx; Result.Status has it
	Refused Kind = "connection-refused" // nothing accepted the connection (ECONNREFUSED)
	Reset   Kind = "reset"              // the connection was reset or closed before an answer
	Timeout Kind = "timeout"            // no answer within Config.Timeout
	Other   Kind = "other"              // DNS, TLS or any other error
)

// Result is one request.
type Result struct {
	// Start is time.Now() taken just before the request was sent; it
	// carries the monotonic clock reading, as the timeline's events do.
	Start time.Time
	// Latency is from Start to the end of the answer's body, or to the
	// error.
	Latency time.Duration
	Kind    Kind
	// Status is the HTTP status code when an answer came (OK or Status).
	Status int
	// Err is the error's text for failures other than Status.
	Err string
}

// Failed reports whether the request did not get a 2xx or 3xx answer.
func (r Result) Failed() bool { return r.Kind != OK }

// Label names the outcome for people: "ok", "502", "connection refused",
// "reset", "timeout", "other".
func (r Result) Label() string { return Label(r.Kind, r.Status) }

// Label names an outcome of kind k for people; status is the HTTP status
// code, used for Status.
func Label(k Kind, status int) string {
	if k == Status {
		return fmt.Sprint(status)
	}
	return strings.ReplaceAll(string(k), "-", " ")
}

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
