package main

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/cliutil"
)

// blockingTransport stands for client-go's exec authenticator running a
// plugin that hangs: it ignores the request's context. reach makes it pass
// the request on (as the authenticator does once it has a token) to a
// reachedTransport over a server that answers only when the context ends.
type blockingTransport struct{ reach bool }

func (b blockingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if b.reach {
		return reachedTransport{ctxTransport{}}.RoundTrip(req)
	}
	time.Sleep(time.Hour)
	return nil, nil
}

// ctxTransport is a connection to a server that never answers: it returns
// when the request's context ends, as net/http's transport does.
type ctxTransport struct{}

func (ctxTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	<-req.Context().Done()
	return nil, req.Context().Err()
}

func TestBoundedTransportEndsWithTheContext(t *testing.T) {
	for _, tc := range []struct {
		name      string
		reach     bool
		interrupt bool
		want      string
	}{
		{"plugin hangs, deadline", false, false, "getting credentials: the credential plugin /bin/login did not answer within 200ms"},
		{"plugin hangs, Ctrl-C", false, true, "getting credentials: the credential plugin /bin/login had not answered when interrupted (after 200ms)"},
		{"server stalls, deadline", true, false, "the API server stalled: no answer within 200ms: context deadline exceeded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			if tc.interrupt {
				ctx, cancel = context.WithCancel(context.Background())
				time.AfterFunc(200*time.Millisecond, cancel)
			}
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "https://127.0.0.1:1/api", nil)
			start := time.Now()
			_, err := (&boundedTransport{next: blockingTransport{tc.reach}, plugin: "/bin/login"}).RoundTrip(req)
			if took := time.Since(start); took > 2*time.Second {
				t.Fatalf("returned after %s", took)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// A stalled server is a cluster that does not answer, however the
// request failed around it: the fleet audit with --request-timeout once
// named it "the cluster of context hole: ... stalled" instead of "cannot
// reach", when the round trip (not the dial) timed out under load.
func TestServerStalledIsNoAnswer(t *testing.T) {
	err := &url.Error{Op: "Get", URL: "https://127.0.0.1:1/version?timeout=2s",
		Err: &serverStalled{waited: 2 * time.Second, cause: context.DeadlineExceeded}}
	if !cliutil.NoAnswer(err) {
		t.Fatalf("NoAnswer(%v) = false, want true", err)
	}
	if msg := cliutil.Unreachable("hole", "https://127.0.0.1:1", err).Error(); !strings.HasPrefix(msg, "cannot reach the cluster of context hole") {
		t.Errorf("worded %q, want cannot reach", msg)
	}
}
