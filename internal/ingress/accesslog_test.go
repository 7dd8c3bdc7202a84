package ingress

import (
	"strings"
	"testing"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/probe"
)

// A Traefik JSON access log as v3 writes it (fields cut to those read, in
// its order), with Traefik's own log and another client's request mixed in.
const accessLogSample = `2026-12-07T10:01:02Z INF Configuration loaded from flags.
{"ClientAddr":"10.244.0.1:40312","DownstreamStatus":200,"OriginStatus":200,"RequestPath":"/","ServiceAddr":"10.244.0.7:8080","ServiceURL":"http://10.244.0.7:8080"}
{"DownstreamStatus":502,"OriginStatus":0,"RequestPath":"/healthz?a=1&kubectl-graceful-probe=1000","ServiceAddr":"10.244.0.7:8080","ServiceURL":"http://10.244.0.7:8080"}
{"DownstreamStatus":503,"OriginStatus":503,"RequestPath":"/healthz?a=1&kubectl-graceful-probe=2000","ServiceAddr":"10.244.1.9:8080"}
{"DownstreamStatus":503,"OriginStatus":0,"RequestPath":"/healthz?a=1&kubectl-graceful-probe=3000"}
{"DownstreamStatus":200,"OriginStatus":200,"RequestPath":"/healthz?a=1&kubectl-graceful-probe=4000","ServiceAddr":"10.244.1.9:8080"}
`

func TestReadAccessLogAttributesEachFailure(t *testing.T) {
	records, err := ReadAccessLog(strings.NewReader(accessLogSample), "kubectl-graceful-probe")
	if err != nil {
		t.Fatal(err)
	}
	if len(records) != 4 {
		t.Fatalf("records %v: want the 4 marked requests", records)
	}
	at := func(ns int64) time.Time { return time.Unix(0, ns) }
	results := []probe.Result{
		{Start: at(1000), Kind: probe.Status, Status: 502},
		{Start: at(2000), Kind: probe.Status, Status: 503},
		{Start: at(3000), Kind: probe.Status, Status: 503},
		{Start: at(4000), Kind: probe.OK, Status: 200},
		{Start: at(5000), Kind: probe.Refused},
	}
	Attribute(results, records)
	want := []*probe.ProxyRecord{
		{Logged: true, Upstream: "10.244.0.7:8080"},
		{Logged: true, Upstream: "10.244.1.9:8080"},
		{Logged: true},
		nil, // not failed: not attributed
		{},  // failed, not in the log
	}
	for i, r := range results {
		if (r.Proxy == nil) != (want[i] == nil) || r.Proxy != nil && *r.Proxy != *want[i] {
			t.Errorf("result %d: proxy %+v, want %+v", i, r.Proxy, want[i])
		}
	}
}
