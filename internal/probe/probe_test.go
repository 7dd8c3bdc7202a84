package probe

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

func mustURL(t *testing.T, raw string) Config {
	t.Helper()
	u, err := ParseURL(raw)
	if err != nil {
		t.Fatal(err)
	}
	return Config{URL: u, Rate: DefaultRate, Timeout: DefaultTimeout}
}

func TestParseURLRejectsBadInput(t *testing.T) {
	for _, raw := range []string{"ftp://x/", "localhost:8080", "http://", "://x", "http://[::1"} {
		if _, err := ParseURL(raw); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseURL(%q) = %v, want one line", raw, err)
		}
	}
	for _, rate := range []int{0, -1, MaxRate + 1} {
		c := mustURL(t, "http://127.0.0.1/")
		c.Rate = rate
		if c.Validate() == nil {
			t.Errorf("rate %d accepted", rate)
		}
	}
	if _, _, err := ParseHeader("no colon"); err == nil {
		t.Error("header without colon accepted")
	}
	if n, v, err := ParseHeader("Host: shop.example.com"); err != nil || n != "Host" || v != "shop.example.com" {
		t.Errorf("ParseHeader = %q %q %v", n, v, err)
	}
}

func TestOnceClassifies(t *testing.T) {
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Host != "shop.example.com" || r.Header.Get("X-Probe") != "1" || r.UserAgent() != "synthetic" {
			w.WriteHeader(http.StatusBadRequest)
		}
	}))
	defer ok.Close()
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusBadGateway) }))
	defer bad.Close()
	closing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		c, _, _ := w.(http.Hijacker).Hijack()
		c.Close()
	}))
	defer closing.Close()
	slow := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer slow.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String() + "/"
	l.Close()

	cases := []struct {
		url   string
		want  Kind
		label string
	}{
		{ok.URL, OK, "ok"}, {bad.URL, Status, "502"}, {closing.URL, Reset, "reset"},
		{slow.URL, Timeout, "timeout"}, {refused, Refused, "connection refused"},
		// Its SYNs dropped: no connection, the network's silence.
		{"http://" + e2e.BlackHole(t) + "/", NoAnswer, "no answer: network"},
	}
	for _, c := range cases {
		cfg := mustURL(t, c.url)
		cfg.Timeout = 300 * time.Millisecond
		cfg.Header = http.Header{"Host": {"shop.example.com"}, "X-Probe": {"1"}, "User-Agent": {"synthetic"}}
		before := time.Now()
		r := New(cfg).Once(context.Background())
		if r.Kind != c.want || r.Label() != c.label {
			t.Errorf("%s: got %s (%s, %s), want %s", c.url, r.Kind, r.Label(), r.Err, c.label)
		}
		if d := r.Start.Sub(before); d < 0 || d > 50*time.Millisecond {
			t.Errorf("%s: Start is %s after the call", c.url, d)
		}
	}
}

func TestRunBucketsInOrderAndStopsWithContext(t *testing.T) {
	// The connections of the requests served, by client address: a
	// request the deadline cut before it was served opened one too, which
	// counting every new connection would hold against the probe.
	var mu sync.Mutex
	served, conns := 0, map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		served++
		conns[r.RemoteAddr] = true
	}))
	defer srv.Close()
	cfg := mustURL(t, srv.URL)
	cfg.Rate = 100
	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
	defer cancel()
	var buckets []Bucket
	New(cfg).Run(ctx, func(b Bucket) { buckets = append(buckets, b) })
	n := 0
	for i, b := range buckets {
		if i > 0 && !b.From.After(buckets[i-1].From) {
			t.Fatalf("bucket %d not after bucket %d", i, i-1)
		}
		for _, r := range b.Results {
			n++
			if r.Start.Before(b.From) {
				t.Errorf("request at %s outside bucket %s", r.Start, b.From)
			}
			if r.Failed() {
				t.Errorf("request failed: %s %s", r.Label(), r.Err)
			}
		}
	}
	// 100/s for 0.6 s on a loaded machine: at least a third of them.
	if n < 20 || n > 61 {
		t.Errorf("%d requests, want about 60", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(conns) != served {
		t.Errorf("%d connections for %d requests served: each request must open its own", len(conns), served)
	}
}

func TestRunKeepAliveReusesConnections(t *testing.T) {
	var mu sync.Mutex
	conns := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		mu.Lock()
		conns[r.RemoteAddr] = true
		mu.Unlock()
	}))
	defer srv.Close()
	cfg := mustURL(t, srv.URL)
	cfg.KeepAlive = true
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	n := 0
	New(cfg).Run(ctx, func(b Bucket) { n += len(b.Results) })
	if n < 3 || len(conns) >= n {
		t.Errorf("%d requests over %d connections: keep-alive must reuse them", n, len(conns))
	}
}

// Run returns promptly when its context ends, without reporting the
// requests it cut short as failures.
func TestRunStopsPromptlyWithoutFalseFailures(t *testing.T) {
	slow := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer slow.Close()
	cfg := mustURL(t, slow.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	failed := 0
	New(cfg).Run(ctx, func(b Bucket) { failed += b.Failed() })
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("Run took %s after its context ended", d)
	}
	if failed != 0 {
		t.Errorf("%d requests cut short reported as failed", failed)
	}
}

func TestMarkAddsTheStartAfterTheURLsQuery(t *testing.T) {
	var query string
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { query = r.URL.RawQuery }))
	defer srv.Close()
	cfg := mustURL(t, srv.URL+"/healthz?b=2&a=1")
	cfg.Mark = true
	r := New(cfg).Once(context.Background())
	if want := "b=2&a=1&" + MarkParam + "=" + strconv.FormatInt(r.Start.UnixNano(), 10); query != want || r.Failed() {
		t.Errorf("query %q (%s), want %q", query, r.Label(), want)
	}
	cfg = mustURL(t, srv.URL+"/healthz")
	cfg.Mark = true
	if r := New(cfg).Once(context.Background()); query != MarkParam+"="+strconv.FormatInt(r.Start.UnixNano(), 10) {
		t.Errorf("query %q without one of the URL's own", query)
	}
}
