package probe

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Prober sends the requests of one Config.
type Prober struct {
	cfg    Config
	client *http.Client
}

// New builds a Prober; cfg must pass Validate.
func New(cfg Config) *Prober {
	tr := &http.Transport{
		Proxy:               nil, // the probe measures the path to URL, never a proxy's
		DialContext:         (&net.Dialer{Timeout: cfg.Timeout}).DialContext,
		TLSHandshakeTimeout: cfg.Timeout,
		DisableKeepAlives:   !cfg.KeepAlive,
		MaxIdleConnsPerHost: MaxRate,
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: cfg.Insecure}, //nolint:gosec // only with --probe-insecure
	}
	return &Prober{cfg: cfg, client: &http.Client{Transport: tr, Timeout: cfg.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// synRetransmit is when Linux sends an unanswered SYN again (the initial
// retransmission timeout, TCP_TIMEOUT_INIT, RFC 6298): a connection set up
// later than that had its first SYN go unanswered, and a request that then
// runs out of time lost it to the network.
const synRetransmit = time.Second

// Once sends one request and returns its result.
func (p *Prober) Once(ctx context.Context) Result {
	start := time.Now()
	u := *p.cfg.URL
	if p.cfg.Mark { // appended: the URL's own query stays as written
		u.RawQuery = strings.TrimPrefix(u.RawQuery+"&", "&") + MarkParam + "=" + strconv.FormatInt(start.UnixNano(), 10)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Result{Start: start, Kind: Other, Err: err.Error()}
	}
	for name, vals := range p.cfg.Header {
		for _, v := range vals {
			if http.CanonicalHeaderKey(name) == "Host" {
				req.Host = v
				continue
			}
			req.Header.Add(name, v)
		}
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", "kubectl-graceful-probe")
	}
	// Whether a connection was set up at the first SYN tells the
	// network's silence from the app's (classify).
	var connected atomic.Bool
	var dialStart atomic.Int64
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		ConnectStart: func(_, _ string) { dialStart.Store(time.Now().UnixNano()) },
		ConnectDone: func(_, _ string, err error) {
			if err == nil && time.Since(time.Unix(0, dialStart.Load())) < synRetransmit {
				connected.Store(true)
			}
		},
		GotConn: func(i httptrace.GotConnInfo) { connected.Store(connected.Load() || i.Reused) },
	}))
	resp, err := p.client.Do(req)
	if err == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	r := Result{Start: start, Latency: time.Since(start)}
	switch {
	case err != nil && resp != nil:
		r.Kind, r.Status, r.Err = classify(err, true), resp.StatusCode, err.Error()
	case err != nil:
		r.Kind, r.Err = classify(err, connected.Load()), err.Error()
	case resp.StatusCode >= 200 && resp.StatusCode < 400:
		r.Kind, r.Status = OK, resp.StatusCode
	default:
		r.Kind, r.Status = Status, resp.StatusCode
	}
	return r
}

// Run starts Config.Rate requests a second until ctx ends, then cancels the
// requests in flight, waits for them and returns; a request cut short by
// ctx is not reported (it did not fail: it was stopped). onBucket gets every
// 100 ms bucket of request start times, in order, once every request
// started in it has its result; it is called from one goroutine at a time.
// The first bucket starts at Run's start.
func (p *Prober) Run(ctx context.Context, onBucket func(Bucket)) {
	agg := &aggregator{origin: time.Now(), onBucket: onBucket, pending: map[int]int{}, results: map[int][]Result{}}
	tick := time.NewTicker(time.Second / time.Duration(p.cfg.Rate))
	defer tick.Stop()
	var wg sync.WaitGroup
	for {
		select {
		case <-ctx.Done():
			wg.Wait()
			agg.flush(true)
			return
		case <-tick.C:
			idx := agg.started(time.Now())
			wg.Go(func() {
				r := p.Once(ctx)
				if r.Failed() && ctx.Err() != nil {
					agg.done(idx, nil)
					return
				}
				agg.done(idx, &r)
			})
		}
	}
}
