package harness

import "testing"

// The counts sum each kind over its URLs and statuses (the log's line
// shapes are e2e.ClientRequests's, tested there): a response logged twice
// is one request.
func TestClientRequestsCountsByKind(t *testing.T) {
	log := `I1202 18:01:02.000004 1 round_trippers.go:632] "Response" verb="POST" url="https://127.0.0.1:6443/api/v1/namespaces/a/pods/p-1/eviction" status="201 Created" milliseconds=6
I1202 18:01:02.000005 1 round_trippers.go:553] "Response" verb="POST" url="https://127.0.0.1:6443/api/v1/namespaces/a/pods/p-1/eviction" status="201 Created" milliseconds=7
I1202 18:01:02.000006 1 round_trippers.go:632] "Response" verb="POST" url="https://127.0.0.1:6443/api/v1/namespaces/a/pods/p-2/eviction" status="429 Too Many Requests" milliseconds=6
I1202 18:22:48.330590   17961 round_trippers.go:560] POST https://127.0.0.1:33793/api/v1/namespaces/a/pods/p-3/eviction 201 Created in 3 milliseconds
`
	got := clientRequests(log)
	if len(got) != 1 || got["POST pods/eviction"] != 3 {
		t.Errorf("counts %v, want POST pods/eviction 3", got)
	}
}
