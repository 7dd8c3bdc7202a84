// Package probe is the data of the requests `watch --probe` sends: how one
// ended (Kind), one request (Result), and the requests started within one
// 100 ms bucket (Bucket). A watch's Timeline keeps them and its verdict
// judges them (pkg/timeline); the prober that sends them is the plugin's
// own (internal/probe).
package probe

import (
	"fmt"
	"strings"
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
	Timeout Kind = "timeout"            // connected, but no answer within the prober's timeout
	// NoAnswer: the network gave no answer, so no connection was set up
	// in time: the SYN went unanswered until the prober's timeout, or was
	// answered only once sent again and the time ran out (dropped on the
	// way, or sent by stale rules to an address where nothing runs), or
	// the route refused it (no route to the host or network).
	// The app never saw such a request: a live pod's kernel answers a
	// SYN even when the app does not, with a SYN-ACK or a reset.
	NoAnswer Kind = "no-answer"
	Other    Kind = "other" // DNS, TLS or any other error
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
	// Proxy is what the Ingress controller's access log says of a failed
	// request (watch --probe-access-log); nil when it was not read.
	Proxy *ProxyRecord
}

// ProxyRecord is what an L7 proxy's access log says of one request: where
// the proxy sent it. Traefik's JSON access log gives it (ServiceAddr;
// doc.traefik.io, "Access Logs").
type ProxyRecord struct {
	// Logged is false when the log has no line for the request: it never
	// reached the proxy, or the proxy had not written it yet.
	Logged bool
	// Upstream is the host:port the proxy sent the request to; "" when it
	// had no server for it.
	Upstream string
}

// Failed reports whether the request did not get a 2xx or 3xx answer.
func (r Result) Failed() bool { return r.Kind != OK }

// Label names the outcome for people: "ok", "502", "connection refused",
// "reset", "timeout", "other".
func (r Result) Label() string {
	switch r.Kind {
	case Status:
		return fmt.Sprint(r.Status)
	case NoAnswer:
		return "no answer: network"
	}
	return strings.ReplaceAll(string(r.Kind), "-", " ")
}

// Bucket is the requests started within one 100 ms span.
type Bucket struct {
	// From is the start of the bucket; requests started in [From,
	// From+100 ms) are in it, in start order.
	From    time.Time
	Results []Result
}

// Failed counts the failed requests.
func (b Bucket) Failed() int {
	n := 0
	for _, r := range b.Results {
		if r.Failed() {
			n++
		}
	}
	return n
}
