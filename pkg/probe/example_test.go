package probe_test

import (
	"fmt"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/probe"
)

// Read a bucket of probe requests, as a watch's Timeline keeps them
// (Timeline.Requests): how many failed, and how each ended in words.
func ExampleBucket() {
	start := time.Date(2026, 11, 29, 7, 0, 0, 0, time.UTC)
	b := probe.Bucket{From: start, Results: []probe.Result{
		{Start: start, Latency: 3 * time.Millisecond, Kind: probe.OK, Status: 200},
		{Start: start.Add(50 * time.Millisecond), Latency: 2 * time.Millisecond, Kind: probe.Status, Status: 502},
		{Start: start.Add(90 * time.Millisecond), Kind: probe.Refused, Err: "connect: connection refused"},
	}}
	fmt.Println(b.Failed(), "of", len(b.Results), "failed")
	for _, r := range b.Results {
		fmt.Println(r.Kind, r.Label())
	}
	// Output:
	// 2 of 3 failed
	// ok ok
	// status 502
	// connection-refused connection refused
}
