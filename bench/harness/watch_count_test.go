package harness

import "testing"

// A re-watch of the same pods (new resourceVersion, timeoutSeconds,
// bookmarks) is one target and one more request; the log's doubled lines
// are one request; lists and gets are not watches; another selector or
// path is another target.
func TestCountWatches(t *testing.T) {
	log := `klog I: Response verb="GET" url="https://h/api/v1/pods?fieldSelector=spec.nodeName%3Dn1" status="200 OK" milliseconds="13"
klog I: Response verb="GET" url="https://h/api/v1/pods?fieldSelector=spec.nodeName%3Dn1" status="200 OK" milliseconds="13"
klog I: Response verb="GET" url="https://h/api/v1/pods?allowWatchBookmarks=true&fieldSelector=spec.nodeName%3Dn1&resourceVersion=5&timeoutSeconds=411&watch=true" status="200 OK" milliseconds="0"
klog I: Response verb="GET" url="https://h/api/v1/pods?allowWatchBookmarks=true&fieldSelector=spec.nodeName%3Dn1&resourceVersion=5&timeoutSeconds=411&watch=true" status="200 OK" milliseconds="0"
klog I: Response verb="GET" url="https://h/api/v1/pods?fieldSelector=spec.nodeName%3Dn2&resourceVersion=5&watch=true" status="200 OK" milliseconds="0"
klog I: Response verb="GET" url="https://h/api/v1/pods?fieldSelector=spec.nodeName%3Dn2&resourceVersion=5&watch=true" status="200 OK" milliseconds="0"
[+1.000s] n1: evicting 1 pod(s)
klog I: Response verb="GET" url="https://h/api/v1/pods?allowWatchBookmarks=true&fieldSelector=spec.nodeName%3Dn1&resourceVersion=9&timeoutSeconds=302&watch=true" status="200 OK" milliseconds="0"
klog I: Response verb="GET" url="https://h/api/v1/pods?allowWatchBookmarks=true&fieldSelector=spec.nodeName%3Dn1&resourceVersion=9&timeoutSeconds=302&watch=true" status="200 OK" milliseconds="0"
klog I: Response verb="GET" url="https://h/api/v1/nodes?labelSelector=pool%3Dold&resourceVersion=5&watch=true" status="200 OK" milliseconds="0"
klog I: Response verb="GET" url="https://h/api/v1/nodes?labelSelector=pool%3Dold&resourceVersion=5&watch=true" status="200 OK" milliseconds="0"
klog I: Response verb="GET" url="https://h/apis/discovery.k8s.io/v1/endpointslices?resourceVersion=5&watch=true" status="200 OK" milliseconds="0"
klog I: Response verb="GET" url="https://h/apis/discovery.k8s.io/v1/endpointslices?resourceVersion=5&watch=true" status="200 OK" milliseconds="0"
klog I: Response verb="GET" url="https://h/apis/discovery.k8s.io/v1/endpointslices?resourceVersion=8&watch=true" status="200 OK" milliseconds="0"
klog I: Response verb="POST" url="https://h/api/v1/namespaces/a/pods/p/eviction" status="201 Created" milliseconds="3"
node n1 drained
`
	got := countWatches(log)
	if got.targets != 4 || got.requests != 6 {
		t.Errorf("countWatches = %+v, want 4 targets (pods of n1, pods of n2, nodes, EndpointSlices) and 6 requests", got)
	}
	if got := watchCell(got); got != "4 (6 watch requests, re-watches included)" {
		t.Errorf("cell %q", got)
	}
	if got := countWatches("no log\n"); got.targets != 0 || got.requests != 0 {
		t.Errorf("empty log: %+v", got)
	}
}

// A doubled line separated by another goroutine's line is counted twice:
// the request count errs high, never hides a re-watch.
func TestCountWatchesInterleavedCopy(t *testing.T) {
	w := `klog I: Response verb="GET" url="https://h/api/v1/events?fieldSelector=involvedObject.kind%3DPod&resourceVersion=3&watch=true" status="200 OK" milliseconds="0"`
	log := w + "\n" + `klog I: Response verb="GET" url="https://h/api/v1/nodes/n1" status="200 OK" milliseconds="1"` + "\n" + w + "\n"
	if got := countWatches(log); got.targets != 1 || got.requests != 2 {
		t.Errorf("countWatches = %+v, want 1 target, 2 requests", got)
	}
}
