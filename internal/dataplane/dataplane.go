// Package dataplane is a SIMULATED data plane for the local cluster, where
// kwok plays the kubelet and no pod runs a process: a load balancer on
// 127.0.0.1 that routes to a Service's endpoints the way kube-proxy does,
// a propagation delay late, and one local backend per pod standing for its
// app. It lets tests and `make demo` show real requests failing when a pod
// stops before the data plane stops sending it traffic. The plugin never
// uses it.
//
// Its rules (routing, the simulated SIGTERM, 502 and 503) are those of
// docs/probe.md, "The simulated data plane of the local cluster".
package dataplane

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
)

// DefaultPropagation is Config.Propagation's default.
const DefaultPropagation = time.Second

// Config is what Start needs.
type Config struct {
	Client             kubernetes.Interface
	Namespace, Service string
	// Propagation is how late routing follows the EndpointSlices;
	// DefaultPropagation when zero.
	Propagation time.Duration
}

// DataPlane is a running simulated data plane.
type DataPlane struct {
	// URL is the load balancer's address, http://127.0.0.1:PORT/.
	URL string
	cfg Config

	mu       sync.Mutex
	routed   []string // pod names traffic goes to
	routeSeq uint64   // the last routing snapshot applied
	backends map[string]*backend
	next     int

	srv    *http.Server
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Start starts the load balancer and the watches, and returns once the
// current endpoints are routed (without delay: the delay applies to
// changes). Close stops everything.
func Start(ctx context.Context, cfg Config) (*DataPlane, error) {
	if cfg.Propagation == 0 {
		cfg.Propagation = DefaultPropagation
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	d := &DataPlane{URL: "http://" + l.Addr().String() + "/", cfg: cfg, backends: map[string]*backend{}}
	d.srv = &http.Server{Handler: http.HandlerFunc(d.serve), ReadHeaderTimeout: 5 * time.Second}
	d.wg.Go(func() { _ = d.srv.Serve(l) })
	wctx, cancel := context.WithCancel(ctx)
	d.cancel = cancel
	if err := d.watch(wctx); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// Describe says plainly what this is, for the demo's and tests' output.
func (d *DataPlane) Describe() string {
	return fmt.Sprintf("SIMULATED data plane at %s for Service %s/%s: a load balancer that follows its EndpointSlices %s late (propagation delay), one local backend per pod that refuses new connections from the simulated SIGTERM (Killing + preStop) and is gone when its containers exit",
		d.URL, d.cfg.Namespace, d.cfg.Service, d.cfg.Propagation)
}

// Close stops the load balancer, the watches and every backend.
func (d *DataPlane) Close() {
	d.cancel()
	_ = d.srv.Close()
	d.mu.Lock()
	for _, b := range d.backends {
		b.gone()
	}
	d.mu.Unlock()
	d.wg.Wait()
}

// serve forwards one request to the next routed backend, round robin.
func (d *DataPlane) serve(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	var target *backend
	for range d.routed {
		name := d.routed[d.next%len(d.routed)]
		d.next++
		if b := d.backends[name]; b != nil {
			target = b
			break
		}
	}
	d.mu.Unlock()
	if target == nil {
		http.Error(w, "no endpoint routed", http.StatusServiceUnavailable)
		return
	}
	u, _ := url.Parse("http://" + target.addr)
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.Transport = &http.Transport{DisableKeepAlives: true, Proxy: nil}
	proxy.ErrorLog = discardLog
	proxy.ServeHTTP(w, r)
}

// route applies a routing snapshot taken at seq, after the propagation
// delay unless now; a later snapshot applied first wins.
func (d *DataPlane) route(seq uint64, pods []string, now bool) {
	apply := func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		if seq > d.routeSeq {
			d.routeSeq, d.routed = seq, pods
		}
	}
	if now {
		apply()
		return
	}
	time.AfterFunc(d.cfg.Propagation, apply)
}
