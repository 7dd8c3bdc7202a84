package timeline

import (
	"slices"
	"testing"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/probe"
)

// The failures are placed by where the proxy sent them: to the
// terminating pod (and after its exit at +400 ms), elsewhere, nowhere.
func TestRequestsVerdictNamesTheProxyFromItsLog(t *testing.T) {
	tl := terminate(t, 30, false, 0, []string{"web"}, 400, 0, nil)
	tl.PodIPs = []string{"10.244.0.7"}
	probed(tl, -500, 1000, 3*time.Millisecond, func(ms int64) string {
		switch {
		case ms >= 50 && ms <= 600:
			return "502"
		case ms == 650:
			return string(probe.Refused)
		}
		return ""
	})
	v := ComputeWith(tl, Options{Propagation: time.Second})
	if v.Requests.Proxy != nil || hasFinding(v, "the proxy's access log") {
		t.Fatalf("without the log read: %+v", v.Requests.Proxy)
	}
	for i := range tl.Requests { // what internal/ingress.Attribute sets
		r := &tl.Requests[i]
		ms, _ := tl.Ms(r.Start)
		switch {
		case ms == 650:
			r.Proxy = &probe.ProxyRecord{}
		case ms == 600:
			r.Proxy = &probe.ProxyRecord{Logged: true}
		case ms == 550:
			r.Proxy = &probe.ProxyRecord{Logged: true, Upstream: "10.244.1.3:8080"}
		case r.Failed():
			r.Proxy = &probe.ProxyRecord{Logged: true, Upstream: "10.244.0.7:8080"}
		}
	}
	v = ComputeWith(tl, Options{Propagation: time.Second})
	p := v.Requests.Proxy
	// 502s every 50 ms from +50 to +500 sent to the pod: 8 up to +400
	// (its exit), 2 after; +550 to another pod; +600 found no server.
	if p == nil || p.ToTerminated != 10 || p.AfterExit != 2 || p.ToOther != 1 || p.NoServer != 1 || p.NotLogged != 1 || !slices.Equal(p.Upstreams, []string{"10.244.0.7:8080"}) {
		t.Fatalf("proxy counts %+v", p)
	}
	line := "the proxy's access log, of the failed requests: 10 sent by the proxy to the terminating pod (10.244.0.7:8080), 2 of them after its containers had exited, which the proxy answered itself; 1 sent to other pods (the log does not say whether they or the proxy answered); 1 found no server in the proxy; 1 not in the log (they never reached this proxy, or it did not log them)"
	if !hasFinding(v, line) {
		t.Errorf("no finding %q in %q", line, v.Findings)
	}
}
