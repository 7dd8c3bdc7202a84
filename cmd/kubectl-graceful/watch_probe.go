package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/kubectl-graceful/kubectl-graceful/internal/probe"
	"github.com/kubectl-graceful/kubectl-graceful/internal/termsafe"
)

// probeBaseline is how long the probe runs before this command deletes or
// evicts the pod, so that the verdict has latency from before the
// termination to compare with.
const probeBaseline = time.Second

// probeFlags are the --probe* flags of the watch commands.
type probeFlags struct {
	url       string
	rate      int
	timeout   time.Duration
	keepAlive bool
	headers   []string
	insecure  bool
	// accessLog is --probe-access-log, Traefik's JSON access log.
	accessLog string

	cfg probe.Config
	// apiServer is the cluster's address (rest.Config.Host), which the
	// probe's URL is checked against.
	apiServer string
}

func (p *probeFlags) add(f *pflag.FlagSet) {
	f.StringVar(&p.url, "probe", "", "Send HTTP(S) GET requests to this URL while watching and put them on the timeline as a third track, requests (use the public Ingress or load balancer URL: the path users' requests take)")
	f.IntVar(&p.rate, "probe-rate", probe.DefaultRate, fmt.Sprintf("Probe requests per second (1 to %d)", probe.MaxRate))
	f.DurationVar(&p.timeout, "probe-timeout", probe.DefaultTimeout, "Timeout of each probe request")
	f.BoolVar(&p.keepAlive, "probe-keepalive", false, "Reuse probe connections, as a load balancer's pool does (default: a new connection for each request)")
	f.StringArrayVar(&p.headers, "probe-header", nil, `Header added to each probe request, "Name: value" (repeatable; Host is honoured)`)
	f.BoolVar(&p.insecure, "probe-insecure", false, "Do not verify the probe URL's TLS certificate (self-signed certificates)")
	f.StringVar(&p.accessLog, "probe-access-log", "", "Traefik's JSON access log, a file it writes while the watch runs: each failed probe request is looked up in it (by a kubectl-graceful-probe query parameter the probe then adds) to say where the proxy sent it: the terminating pod, another pod, or none")
}

// complete builds the probe's configuration from the flags. A value that
// does not parse is validate's to name: only a good configuration is kept.
func (p *probeFlags) complete() {
	if cfg, err := p.config(); err == nil {
		p.cfg = cfg
	}
}

// validate checks the flags; it sets nothing. The --probe-* flags without
// --probe are refused: they would do nothing.
func (p *probeFlags) validate(cmd string) error {
	if p.url == "" {
		changed := p.rate != 0 && p.rate != probe.DefaultRate || p.timeout != 0 && p.timeout != probe.DefaultTimeout
		if changed || p.keepAlive || len(p.headers) > 0 || p.insecure || p.accessLog != "" {
			return fmt.Errorf("%s: the --probe-* flags need --probe URL", cmd)
		}
		return nil
	}
	cfg, err := p.config()
	if err != nil {
		return err
	}
	return cfg.Validate()
}

// config is the probe's configuration from the flags (--probe set).
func (p *probeFlags) config() (probe.Config, error) {
	if p.url == "" {
		return probe.Config{}, nil
	}
	u, err := probe.ParseURL(p.url)
	if err != nil {
		return probe.Config{}, err
	}
	cfg := probe.Config{URL: u, Rate: p.rate, Timeout: p.timeout, KeepAlive: p.keepAlive, Insecure: p.insecure, Header: http.Header{}, Mark: p.accessLog != ""}
	for _, h := range p.headers {
		name, value, err := probe.ParseHeader(h)
		if err != nil {
			return probe.Config{}, err
		}
		cfg.Header.Add(name, value)
	}
	return cfg, nil
}

// redacted is the probe URL without a password, as shown and recorded.
func (p *probeFlags) redacted() string { return p.cfg.URL.Redacted() }

// probing is a running probe: its URL as recorded, its buckets, stop to
// end it, and the access log from where it was when the probe started;
// all zero without --probe.
type probing struct {
	url     string
	buckets <-chan probe.Bucket
	stop    func()
	log     *os.File
}

// Stop ends the probe and waits for its requests in flight.
func (r *probing) Stop() {
	if r.stop != nil {
		r.stop()
	}
}

// start checks the URL answers once, warns when a loopback URL is probed
// for a cluster that is not on loopback, and starts the probe. An URL
// that does not answer 2xx/3xx is an error: nothing is deleted before the
// probe works.
func (p *probeFlags) start(ctx context.Context, errOut io.Writer, baseline bool) (*probing, error) {
	if p.cfg.URL == nil {
		return &probing{}, nil
	}
	pr := probe.New(p.cfg)
	if r := pr.Once(ctx); r.Failed() {
		why := r.Label()
		if r.Err != "" {
			why += ": " + r.Err
		}
		return nil, fmt.Errorf("the probe URL %s did not answer before the termination (%s): nothing was deleted or evicted", p.redacted(), why)
	}
	var log *os.File
	if p.accessLog != "" {
		var err error
		if log, err = openAtEnd(p.accessLog); err != nil {
			return nil, err
		}
	}
	if w := loopbackWarning(p.cfg.URL, p.apiServer); w != "" {
		fmt.Fprintln(errOut, termsafe.Escape(w))
	}
	conn := "a new connection each"
	if p.cfg.KeepAlive {
		conn = "connections reused"
	}
	fmt.Fprintln(errOut, termsafe.Escape(fmt.Sprintf("note: probing %s at %d requests/s (%s, timeout %s)", p.redacted(), p.cfg.Rate, conn, p.cfg.Timeout)))
	ch := make(chan probe.Bucket, 64)
	pctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		pr.Run(pctx, func(b probe.Bucket) {
			select {
			case ch <- b:
			case <-pctx.Done(): // the watch has ended: nobody reads them
			}
		})
	})
	if baseline {
		select {
		case <-time.After(probeBaseline):
		case <-ctx.Done():
		}
	}
	return &probing{url: p.redacted(), buckets: ch, stop: func() { cancel(); wg.Wait() }, log: log}, nil
}

// loopbackWarning is the warning for a probe URL on loopback: against a
// cluster elsewhere it is a port-forward or a local proxy, which bypass
// kube-proxy and the load balancers, so the endpoint race cannot show.
func loopbackWarning(u *url.URL, apiServer string) string {
	if !isLoopback(u.Hostname()) {
		return ""
	}
	if api, err := url.Parse(apiServer); err == nil && isLoopback(api.Hostname()) {
		return "note: the probe URL is on loopback, and so is the cluster's API server (a local cluster): the probe sees what the local data plane does"
	}
	return "warning: the probe URL " + u.Redacted() + " is on loopback but the cluster is not: a port-forward or local proxy bypasses kube-proxy and the load balancers, so it cannot show requests dropped by the endpoint race; probe the public Ingress or load balancer URL"
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
