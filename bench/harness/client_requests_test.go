package harness

import "testing"

// The -v 6 log of a drain of one pod, as client-go v0.37 writes it (the
// eviction's response logged twice), counts one request per URL.
func TestClientRequestsCountsEachResponseOnce(t *testing.T) {
	log := `I1202 18:01:02.000001 1 round_trippers.go:632] "Response" verb="GET" url="https://127.0.0.1:6443/api/v1/nodes?labelSelector=pool%3Da" status="200 OK" milliseconds=3
I1202 18:01:02.000002 1 round_trippers.go:632] "Response" verb="PATCH" url="https://127.0.0.1:6443/api/v1/nodes/n1" status="200 OK" milliseconds=4
I1202 18:01:02.000003 1 round_trippers.go:632] "Response" verb="GET" url="https://127.0.0.1:6443/api/v1/pods?fieldSelector=spec.nodeName%3Dn1" status="200 OK" milliseconds=5
I1202 18:01:02.000004 1 round_trippers.go:632] "Response" verb="POST" url="https://127.0.0.1:6443/api/v1/namespaces/a/pods/p-1/eviction" status="201 Created" milliseconds=6
I1202 18:01:02.000005 1 round_trippers.go:553] "Response" verb="POST" url="https://127.0.0.1:6443/api/v1/namespaces/a/pods/p-1/eviction" status="201 Created" milliseconds=7
I1202 18:01:02.000006 1 round_trippers.go:632] "Response" verb="GET" url="https://127.0.0.1:6443/apis/policy/v1/namespaces/a/poddisruptionbudgets?watch=true" status="200 OK" milliseconds=1
I1202 18:01:02.000007 1 round_trippers.go:632] "Response" verb="GET" url="https://127.0.0.1:6443/api/v1/namespaces/a" status="200 OK" milliseconds=1
I1202 18:01:02.000008 1 round_trippers.go:632] "Request" verb="GET" url="https://127.0.0.1:6443/api/v1/namespaces/b"
I1202 18:01:02.000009 1 round_trippers.go:632] "Response" verb="GET" url="https://127.0.0.1:6443/apis" status="200 OK" milliseconds=1
`
	got := clientRequests(log)
	want := requestCounts{"LIST nodes": 1, "PATCH nodes": 1, "LIST pods": 1, "POST pods/eviction": 1,
		"WATCH poddisruptionbudgets": 1, "GET namespaces": 1, "GET /apis": 1}
	if len(got) != len(want) {
		t.Fatalf("counts %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %d, want %d (all: %v)", k, got[k], v, got)
		}
	}
	if got.total() != 7 {
		t.Errorf("total %d, want 7", got.total())
	}
}

// kubectl v1.32 writes one unstructured line per response: each counts.
func TestClientRequestsReadsOlderKubectl(t *testing.T) {
	log := `I1202 18:22:48.330587   17961 round_trippers.go:560] GET https://127.0.0.1:33793/api/v1/nodes?limit=500 200 OK in 2 milliseconds
I1202 18:22:48.330588   17961 round_trippers.go:560] GET https://127.0.0.1:33793/api/v1/namespaces/a/pods/p-1 200 OK in 2 milliseconds
I1202 18:22:48.330589   17961 round_trippers.go:560] GET https://127.0.0.1:33793/api/v1/namespaces/a/pods/p-1 404 Not Found in 1 milliseconds
I1202 18:22:48.330590   17961 round_trippers.go:560] POST https://127.0.0.1:33793/api/v1/namespaces/a/pods/p-1/eviction 429 Too Many Requests in 3 milliseconds
I1202 18:22:48.330591   17961 round_trippers.go:560] POST https://127.0.0.1:33793/api/v1/namespaces/a/pods/p-1/eviction 201 Created in 3 milliseconds
`
	got := clientRequests(log)
	want := requestCounts{"LIST nodes": 1, "GET pods": 2, "POST pods/eviction": 2}
	if len(got) != len(want) {
		t.Fatalf("counts %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %d, want %d (all: %v)", k, got[k], v, got)
		}
	}
}
