// Package probe sends HTTP(S) GET requests to one URL at a steady rate and
// classifies each answer, so that the requests a termination makes fail can
// be put on the same clock as the API's view of it. It prints nothing:
// results go to a callback, aggregated per 100 ms bucket.
package probe

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Limits and defaults of a Config.
const (
	DefaultRate    = 20
	MaxRate        = 200
	DefaultTimeout = 2 * time.Second
	// BucketWidth is the span of request start times one Bucket covers.
	BucketWidth = 100 * time.Millisecond
)

// Config is what a Prober sends.
type Config struct {
	// URL is the http or https URL each GET goes to.
	URL *url.URL
	// Rate is requests started per second, 1 to MaxRate.
	Rate int
	// Timeout bounds each request, from dial to the end of the body.
	Timeout time.Duration
	// KeepAlive reuses connections, as a load balancer's pool does; by
	// default each request opens a new connection, so that a backend that
	// stops accepting connections is seen at once.
	KeepAlive bool
	// Header is added to every request (Host is honoured).
	Header http.Header
	// Insecure skips TLS certificate verification (self-signed
	// certificates).
	Insecure bool
	// Mark adds MarkParam to each request's query, its start in Unix
	// nanoseconds, so that a proxy's access log names each request
	// (internal/ingress.ReadAccessLog).
	Mark bool
}

// MarkParam is the query parameter Config.Mark adds.
const MarkParam = "kubectl-graceful-probe"

// ParseURL checks raw is an absolute http or https URL with a host. The
// error is one line naming what is wrong.
func ParseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("--probe %q is not a URL: %v", raw, errors.Unwrap(err))
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("--probe %q: unsupported scheme %q, use http:// or https://", raw, u.Scheme)
	case u.Host == "" || u.Hostname() == "":
		return nil, fmt.Errorf("--probe %q has no host: use a full URL such as https://shop.example.com/healthz", raw)
	}
	return u, nil
}

// ParseHeader reads one "Name: value" header.
func ParseHeader(raw string) (name, value string, err error) {
	name, value, ok := strings.Cut(raw, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsAny(name, " \t\r\n") || strings.ContainsAny(value, "\r\n") {
		return "", "", fmt.Errorf("--probe-header %q: use \"Name: value\"", raw)
	}
	return name, strings.TrimSpace(value), nil
}

// Validate checks the rate and timeout; URL must come from ParseURL.
func (c Config) Validate() error {
	switch {
	case c.URL == nil:
		return errors.New("no probe URL")
	case c.Rate < 1 || c.Rate > MaxRate:
		return fmt.Errorf("--probe-rate %d is out of range: use 1 to %d requests per second", c.Rate, MaxRate)
	case c.Timeout <= 0:
		return fmt.Errorf("--probe-timeout %s is not allowed: use a positive duration such as 2s", c.Timeout)
	}
	return nil
}
