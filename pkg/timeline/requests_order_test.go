package timeline

import (
	"context"
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/probe"
)

// A probed watch prints its lines in time order: the prober hands out a
// 100 ms bucket only once every request started in it has ended, so the
// line of the bucket at +100 ms, with a request that took 400 ms to time
// out, arrives after the endpoint's change at +150 ms and the gap at
// +300 ms; it is still printed before them.
func TestProbedLinesPrintInTimeOrder(t *testing.T) {
	var printed []string
	p := Printer{
		Event: func(tl *Timeline, e Event) { printed = append(printed, fmt.Sprintf("%d %s", ms(tl, e.Recv), e.Kind)) },
		Gap:   func(tl *Timeline, g Gap) { printed = append(printed, fmt.Sprintf("%d gap", ms(tl, g.From))) },
		Requests: func(tl *Timeline, l RequestLine) {
			printed = append(printed, fmt.Sprintf("%d requests", ms(tl, l.From)))
		},
	}
	reqs := make(chan probe.Bucket)
	f := newFollower(Config{Printer: p, Requests: reqs}, NewRecorder(testPod(30, nil), []string{"web"}, at(-1000)))
	f.rec.feedSlices(at(-900), nil, true)
	f.rec.feedSlice(at(-800), watch.Added, readySlice("web-abc", "web"))
	f.rec.MarkT0(at(0), T0DeleteSent, "DELETE sent")
	f.requests(probe.Bucket{From: at(0), Results: []probe.Result{{Start: at(0), Kind: probe.OK}}})
	f.rec.feedSlice(at(150), watch.Modified, terminatingSlice("web-abc", "web"))
	_ = f.handle(context.Background(), listwatch.Notice{Stream: StreamEvents, Recv: at(300), Kind: listwatch.KindGapOpen, Reason: "cut"})
	f.requests(probe.Bucket{From: at(100), Results: []probe.Result{{Start: at(100), Kind: probe.Timeout}}})
	f.requests(probe.Bucket{From: at(200), Results: []probe.Result{{Start: at(200), Kind: probe.Reset}}})
	f.rec.feedSlice(at(450), watch.Modified, slice("web-abc", "web", nil, nil, nil))
	f.flushLines()
	want := []string{"-900 service-endpoints", "-800 endpoint-added", "-800 service-endpoints",
		"0 requests", "0 delete-sent", "100 requests", "150 endpoint-changed", "200 requests", "300 gap", "450 endpoint-removed"}
	if fmt.Sprint(printed) != fmt.Sprint(want) {
		t.Errorf("printed\n  %q\nwant\n  %q", printed, want)
	}
}

// Without a probe nothing is held: each line is printed as it comes.
func TestUnprobedLinesPrintAtOnce(t *testing.T) {
	n := 0
	f := newFollower(Config{Printer: Printer{Event: func(*Timeline, Event) { n++ }}}, NewRecorder(testPod(30, nil), nil, at(-1000)))
	f.rec.MarkT0(at(0), T0DeleteSent, "DELETE sent")
	if n != 1 {
		t.Errorf("%d lines printed, want 1 at once", n)
	}
}

func ms(tl *Timeline, t time.Time) int64 { v, _ := tl.Ms(t); return v }

// A bucket the delete falls inside is cut at it: the request that failed
// 37 ms after the delete is on a line stamped +0, never on the bucket's
// line stamped before the delete, which counts only the requests sent
// before it.
func TestRequestBucketCutAtTheDelete(t *testing.T) {
	var printed []string
	p := Printer{
		Event: func(tl *Timeline, e Event) { printed = append(printed, fmt.Sprintf("%d %s", ms(tl, e.Recv), e.Kind)) },
		Requests: func(tl *Timeline, l RequestLine) {
			printed = append(printed, fmt.Sprintf("%d requests %d ok %d failed", ms(tl, l.From), l.OK, l.Failed))
		},
	}
	f := newFollower(Config{Printer: p, Requests: make(chan probe.Bucket)}, NewRecorder(testPod(30, nil), nil, at(-1000)))
	f.rec.MarkT0(at(0), T0DeleteSent, "DELETE sent")
	f.requests(probe.Bucket{From: at(-13), Results: []probe.Result{
		{Start: at(-13), Kind: probe.OK}, {Start: at(-3), Kind: probe.OK}, {Start: at(37), Kind: probe.Refused}}})
	f.requests(probe.Bucket{From: at(87), Results: []probe.Result{{Start: at(87), Kind: probe.Refused}}})
	f.flushLines()
	want := []string{"-13 requests 2 ok 0 failed", "0 requests 0 ok 1 failed", "0 delete-sent", "87 requests 0 ok 1 failed"}
	if fmt.Sprint(printed) != fmt.Sprint(want) {
		t.Errorf("printed\n  %q\nwant\n  %q", printed, want)
	}
	if n := len(f.rec.TL.Requests); n != 4 {
		t.Errorf("%d requests kept, want all 4", n)
	}
}
