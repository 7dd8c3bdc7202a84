package e2e

import (
	"fmt"
	"sort"
	"testing"
)

// client-go v0.37's structured -v 6 log: a response logged twice (not
// always next to each other) is one request; the same URL with another
// status is another; a "Request" line without a status is none.
func TestClientRequestsStructured(t *testing.T) {
	log := `I1202 18:01:02.000001 1 round_trippers.go:632] "Response" verb="GET" url="https://127.0.0.1:6443/api/v1/nodes?labelSelector=pool%3Da" status="200 OK" milliseconds=3
I1202 18:01:02.000002 1 round_trippers.go:632] "Response" verb="PATCH" url="https://127.0.0.1:6443/api/v1/nodes/n1" status="200 OK" milliseconds=4
I1202 18:01:02.000003 1 round_trippers.go:632] "Response" verb="POST" url="https://127.0.0.1:6443/api/v1/namespaces/a/pods/p-1/eviction" status="429 Too Many Requests" milliseconds=6
I1202 18:01:02.000004 1 round_trippers.go:632] "Response" verb="POST" url="https://127.0.0.1:6443/api/v1/namespaces/a/pods/p-1/eviction" status="201 Created" milliseconds=6
I1202 18:01:02.000005 1 round_trippers.go:632] "Response" verb="GET" url="https://127.0.0.1:6443/apis/policy/v1/namespaces/a/poddisruptionbudgets?watch=true" status="200 OK" milliseconds=1
I1202 18:01:02.000006 1 round_trippers.go:553] "Response" verb="POST" url="https://127.0.0.1:6443/api/v1/namespaces/a/pods/p-1/eviction" status="201 Created" milliseconds=7
I1202 18:01:02.000007 1 round_trippers.go:632] "Response" verb="GET" url="https://127.0.0.1:6443/api/v1/namespaces/a" status="200 OK" milliseconds=1
I1202 18:01:02.000008 1 round_trippers.go:632] "Request" verb="GET" url="https://127.0.0.1:6443/api/v1/namespaces/b"
I1202 18:01:02.000009 1 round_trippers.go:632] "Response" verb="GET" url="https://127.0.0.1:6443/apis" status="200 OK" milliseconds=1
`
	want := []string{
		"LIST nodes 200 OK x1", "PATCH nodes 200 OK x1", "GET namespaces 200 OK x1",
		"POST pods/eviction 201 Created x1", "POST pods/eviction 429 Too Many Requests x1",
		"GET /apis 200 OK x1", "WATCH poddisruptionbudgets 200 OK x1",
	}
	checkKinds(t, ClientRequests(log), want)
}

// kubectl v1.32 writes one unstructured line per response: each counts.
func TestClientRequestsUnstructured(t *testing.T) {
	log := `I1202 18:22:48.330587   17961 round_trippers.go:560] GET https://127.0.0.1:33793/api/v1/nodes?limit=500 200 OK in 2 milliseconds
I1202 18:22:48.330588   17961 round_trippers.go:560] GET https://127.0.0.1:33793/api/v1/namespaces/a/pods/p-1 200 OK in 2 milliseconds
I1202 18:22:48.330589   17961 round_trippers.go:560] GET https://127.0.0.1:33793/api/v1/namespaces/a/pods/p-1 200 OK in 1 milliseconds
I1202 18:22:48.330590   17961 round_trippers.go:560] POST https://127.0.0.1:33793/api/v1/namespaces/a/pods/p-1/eviction 429 Too Many Requests in 3 milliseconds
`
	want := []string{"GET pods 200 OK x2", "POST pods/eviction 429 Too Many Requests x1", "LIST nodes 200 OK x1"}
	checkKinds(t, ClientRequests(log), want)
}

func checkKinds(t *testing.T, got []ClientRequest, want []string) {
	t.Helper()
	var kinds []string
	for _, r := range got {
		kinds = append(kinds, fmt.Sprintf("%s %s x%d", r.Kind(), r.Status, r.Count))
	}
	sort.Strings(kinds)
	sort.Strings(want)
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Errorf("requests\n  %q\nwant\n  %q", kinds, want)
	}
}
