package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"k8s.io/client-go/rest"
)

// boundedConfig returns cfg with its whole transport built once and put
// behind boundedTransport, so that every request of every client built
// from it (typed, metadata, dynamic) ends when its context does: at
// --request-timeout (client-go's Request puts it on the context), at a
// command's --timeout, or at the first Ctrl-C. client-go's exec credential
// plugin runs with exec.Command, which no context cancels, under the
// authenticator's mutex (k8s.io/client-go/plugin/pkg/client/auth/exec,
// refreshCredsLocked): a plugin that hangs would hold every request, and
// the command, until it exits. cfg is returned unchanged when its
// transport cannot be built; the client then fails with the same error.
func boundedConfig(cfg *rest.Config) *rest.Config {
	inner := rest.CopyConfig(cfg)
	inner.Wrap(func(rt http.RoundTripper) http.RoundTripper { return reachedTransport{rt} })
	rt, err := rest.TransportFor(inner)
	if err != nil {
		return cfg
	}
	plugin := ""
	if cfg.ExecProvider != nil {
		plugin = cfg.ExecProvider.Command
	}
	return &rest.Config{Host: cfg.Host, APIPath: cfg.APIPath, ContentConfig: cfg.ContentConfig,
		UserAgent: cfg.UserAgent, QPS: cfg.QPS, Burst: cfg.Burst, RateLimiter: cfg.RateLimiter,
		WarningHandler: cfg.WarningHandler, WarningHandlerWithContext: cfg.WarningHandlerWithContext,
		Timeout: cfg.Timeout, DisableCompression: cfg.DisableCompression,
		Transport: &boundedTransport{next: rt, plugin: plugin}}
}

// reachedKey keys the flag a request's context carries to say it got past
// the credentials, to the transport that talks to the API server.
type reachedKey struct{}

// reachedTransport sits below client-go's credential plugin and marks the
// requests that got that far.
type reachedTransport struct{ next http.RoundTripper }

func (r reachedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if f, ok := req.Context().Value(reachedKey{}).(*atomic.Bool); ok {
		f.Store(true)
	}
	return r.next.RoundTrip(req)
}

// boundedTransport returns from a request when its context ends, even when
// the round trip below it does not, and names what the request waited on.
type boundedTransport struct {
	next http.RoundTripper
	// plugin is the exec credential plugin's command, "" when none.
	plugin string
}

type roundTripResult struct {
	resp *http.Response
	err  error
}

func (b *boundedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	reached := new(atomic.Bool)
	ctx := req.Context()
	done := make(chan roundTripResult, 1)
	go func() {
		resp, err := b.next.RoundTrip(req.WithContext(context.WithValue(ctx, reachedKey{}, reached)))
		done <- roundTripResult{resp, err}
	}()
	var r roundTripResult
	select {
	case r = <-done:
		return named(ctx, r, start)
	case <-ctx.Done():
	}
	if !reached.Load() && b.plugin != "" {
		// Still in the credential plugin: leave it, and close what it
		// may still bring.
		go func() {
			if r := <-done; r.resp != nil {
				r.resp.Body.Close()
			}
		}()
		return nil, &pluginStalled{plugin: b.plugin, waited: time.Since(start), cause: context.Cause(ctx)}
	}
	// The transport to the server stops on the context itself.
	return named(ctx, <-done, start)
}

// named returns the result of a round trip that reached the server's
// connection, its failure named a stall when the deadline ended it.
func named(ctx context.Context, r roundTripResult, start time.Time) (*http.Response, error) {
	// By the clock, not ctx.Err(): http.Client's own timer for
	// --request-timeout may cancel the request a moment before the
	// context's timer, set for the same instant, marks it expired.
	dl, ok := ctx.Deadline()
	if r.err != nil && r.resp == nil && ok && !time.Now().Before(dl) {
		return nil, &serverStalled{waited: time.Since(start), cause: r.err}
	}
	return r.resp, r.err
}

// pluginStalled is a request given up while client-go ran the exec
// credential plugin. Its text says "getting credentials", as client-go's
// own failures of the plugin do, so that the drain does not retry it as an
// outage (eviction.Credentials).
type pluginStalled struct {
	plugin string
	waited time.Duration
	cause  error
}

func (e *pluginStalled) Error() string {
	if errors.Is(e.cause, context.Canceled) {
		return fmt.Sprintf("getting credentials: the credential plugin %s had not answered when interrupted (after %s)", e.plugin, roundWait(e.waited))
	}
	return fmt.Sprintf("getting credentials: the credential plugin %s did not answer within %s", e.plugin, roundWait(e.waited))
}

func (e *pluginStalled) Unwrap() error { return e.cause }

// serverStalled is a request that reached the API server's connection and
// got no answer before its deadline.
type serverStalled struct {
	waited time.Duration
	cause  error
}

func (e *serverStalled) Error() string {
	return fmt.Sprintf("the API server stalled: no answer within %s: %v", roundWait(e.waited), e.cause)
}

func (e *serverStalled) Unwrap() error { return e.cause }

// Timeout reports true: the server took the connection and did not
// answer in time, which a *url.Error carrying it reports as its Timeout
// (net/http's own timeouts say the same), so every command words it as a
// cluster that does not answer (cliutil.NoAnswer).
func (e *serverStalled) Timeout() bool { return true }

// roundWait rounds a wait for a message: to the second from 10 s, else to
// the tenth of a second.
func roundWait(d time.Duration) time.Duration {
	if d >= 10*time.Second {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}
