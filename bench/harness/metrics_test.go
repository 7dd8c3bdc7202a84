package harness

import "testing"

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
