package e2e

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"testing"

	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// ThrottlingProxy starts a loopback HTTPS proxy to the API server of e that
// answers a request itself when throttle says so, as API Priority and
// Fairness does when it rejects one (k8s.io/apiserver
// pkg/server/filters/priority-and-fairness.go, tooManyRequests): 429, a
// Retry-After header of retryAfter seconds, a plain-text body. Every other
// request goes on to the API server as the cluster's admin. It returns a
// kubeconfig that goes through the proxy. throttle is called from the
// proxy's goroutines.
func (e *Env) ThrottlingProxy(t testing.TB, throttle func(r *http.Request) (retryAfter int, ok bool)) string {
	t.Helper()
	upstream, err := url.Parse(e.RESTConfig.Host)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := rest.TransportFor(e.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(upstream)
	proxy.Transport, proxy.FlushInterval = rt, -1 // watches stream
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if after, ok := throttle(r); ok {
			w.Header().Set("Retry-After", strconv.Itoa(after))
			w.Header().Set("X-Kubernetes-PF-FlowSchema-UID", "e2e-throttle")
			http.Error(w, "Too many requests, please try again later.", http.StatusTooManyRequests)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	return rewriteKubeconfig(t, e.Kubeconfig, "kubeconfig-throttled", func(c *clientcmdapi.Cluster) {
		c.Server, c.CertificateAuthority, c.CertificateAuthorityData = srv.URL, "", ca
	})
}
