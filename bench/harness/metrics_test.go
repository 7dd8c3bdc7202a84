package harness

import (
	"fmt"
	"testing"
)

func TestSumReadRequests(t *testing.T) {
	raw := []byte(`# HELP apiserver_request_total [STABLE] Counter of apiserver requests
# TYPE apiserver_request_total counter
apiserver_request_total{code="200",component="apiserver",dry_run="",group="apps",resource="deployments",scope="cluster",subresource="",verb="LIST",version="v1"} 12
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="GET",version="v1"} 3
apiserver_request_total{code="200",component="apiserver",dry_run="",group="coordination.k8s.io",resource="leases",scope="namespace",subresource="",verb="GET",version="v1"} 900
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="",scope="",subresource="",verb="GET",version=""} 40
apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="POST",version="v1"} 5000
apiserver_request_total{code="0",component="apiserver",dry_run="",group="",resource="pods",scope="cluster",subresource="",verb="WATCH",version="v1"} 2
apiserver_request_total{code="200",component="apiserver",dry_run="",group="apps",resource="deployments",scope="namespace",subresource="scale",verb="GET",version="v1"} 700
apiserver_request_duration_seconds_count{verb="LIST",resource="pods"} 77
`)
	if got := sumReadRequests(raw); got != 17 {
		t.Errorf("sumReadRequests = %d, want 17 (LIST 12 + GET 3 + WATCH 2; leases, subresources, non-resource and POST left out)", got)
	}
}

func TestSumDrainRequests(t *testing.T) {
	// verb, resource, subresource, count
	samples := [][4]string{
		{"GET", "pods", "", "3"}, {"POST", "pods", "eviction", "20"}, {"POST", "pods", "eviction", "4"},
		{"POST", "pods", "", "5000"}, {"PATCH", "nodes", "", "6"}, {"PATCH", "nodes", "status", "800"},
		{"DELETE", "pods", "", "20"}, {"PUT", "leases", "", "900"},
	}
	var raw []byte
	for _, s := range samples {
		raw = fmt.Appendf(raw, "apiserver_request_total{code=\"200\",group=\"\",resource=%q,scope=\"namespace\",subresource=%q,verb=%q,version=\"v1\"} %s\n", s[1], s[2], s[0], s[3])
	}
	if got := drainRequestCounts(raw).total(); got != 33 {
		t.Errorf("drain requests = %d, want 33 (GET 3 + evictions 24, refused ones included + node PATCH 6; pod creates and deletes, node status, leases left out)", got)
	}
}

func TestRequestCountsDelta(t *testing.T) {
	before := requestCounts{"GET pods": 3, "POST pods/eviction": 1, "LIST poddisruptionbudgets": 50}
	after := requestCounts{"GET pods": 10, "POST pods/eviction": 6, "LIST poddisruptionbudgets": 57, "LIST nodes": 2}
	d := after.minus(before)
	if got, want := d.top(3), "GET pods 7, LIST poddisruptionbudgets 7, POST pods/eviction 5"; got != want {
		t.Errorf("top = %q, want %q", got, want)
	}
	// 7 + 7 + 5 + 2, less the server's own LIST of PDBs for each of the 5 evictions.
	if got := d.clients(); got != 16 {
		t.Errorf("clients = %d, want 16", got)
	}
}
