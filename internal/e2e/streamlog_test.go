package e2e

import (
	"fmt"
	"testing"
)

// A watch list that opens a stream, a watch resumed from a resourceVersion,
// and a watch list the API server ended early (a List, then a watch) are one
// stream and its repeats; kubectl's own List of a node's pods, beside a
// stream that never repeated, is none; a stream opened by a List then a
// watch repeats from its second watch.
func TestStreamRepeats(t *testing.T) {
	const h = "https://127.0.0.1:6443"
	wl := "&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true"
	reqs := []ClientRequest{
		// The budgets' stream: opened, then resumed twice.
		{Verb: "GET", URL: h + "/apis/policy/v1/poddisruptionbudgets?" + wl[1:], Count: 1},
		{Verb: "GET", URL: h + "/apis/policy/v1/poddisruptionbudgets?allowWatchBookmarks=true&resourceVersion=40&watch=true", Count: 2},
		// Node a's pods: kubectl's List, and a watch list ended early
		// (a List, then a watch).
		{Verb: "GET", URL: h + "/api/v1/pods?fieldSelector=spec.nodeName%3Da", Count: 2},
		{Verb: "GET", URL: h + "/api/v1/pods?fieldSelector=spec.nodeName%3Da" + wl, Count: 1},
		{Verb: "GET", URL: h + "/api/v1/pods?allowWatchBookmarks=true&fieldSelector=spec.nodeName%3Da&resourceVersion=7&watch=true", Count: 1},
		// Node b's pods: kubectl's List and a stream that never repeated.
		{Verb: "GET", URL: h + "/api/v1/pods?fieldSelector=spec.nodeName%3Db", Count: 1},
		{Verb: "GET", URL: h + "/api/v1/pods?fieldSelector=spec.nodeName%3Db" + wl, Count: 1},
		// All nodes: a List then a watch, resumed once.
		{Verb: "GET", URL: h + "/api/v1/nodes", Count: 1},
		{Verb: "GET", URL: h + "/api/v1/nodes?resourceVersion=3&watch=true", Count: 1},
		{Verb: "GET", URL: h + "/api/v1/nodes?resourceVersion=9&watch=true", Count: 1},
		{Verb: "POST", URL: h + "/api/v1/namespaces/s/pods/p/eviction", Count: 3},
	}
	got := fmt.Sprint(StreamRepeats(reqs))
	want := fmt.Sprint(map[string]Repeats{
		"/apis/policy/v1/poddisruptionbudgets?labelSelector=&fieldSelector=": {Watches: 2},
		"/api/v1/pods?labelSelector=&fieldSelector=spec.nodeName=a":          {Watches: 1, Lists: 1},
		"/api/v1/nodes?labelSelector=&fieldSelector=":                        {Watches: 1},
	})
	if got != want {
		t.Errorf("StreamRepeats\n  %s\nwant\n  %s", got, want)
	}
	opens := 0
	for _, r := range reqs {
		if r.OpensWatchList() {
			opens++
		}
	}
	if opens != 3 {
		t.Errorf("%d watch lists, want 3", opens)
	}
}
