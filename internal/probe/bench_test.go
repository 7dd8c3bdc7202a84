package probe

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"sync"
	"testing"
	"time"
)

// BenchmarkStampToArrival runs the probe at MaxRate against a loopback
// server for b.N requests and reports the p99 and max of the time from each
// request's Start stamp to the server handling it: an upper bound on how far
// the stamp is from the request's real start (target: 1 ms or less). Starts
// 5 ms apart keep the sorted stamps and arrivals paired.
func BenchmarkStampToArrival(b *testing.B) {
	var mu sync.Mutex
	var arrivals []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		now := time.Now()
		mu.Lock()
		arrivals = append(arrivals, now)
		mu.Unlock()
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var starts []time.Time
	b.ResetTimer()
	New(Config{URL: u, Rate: MaxRate, Timeout: DefaultTimeout}).Run(ctx, func(bk Bucket) {
		for _, r := range bk.Results {
			if !r.Failed() {
				starts = append(starts, r.Start)
			}
		}
		if len(starts) >= b.N {
			cancel()
		}
	})
	b.StopTimer()
	sort.Slice(starts, func(i, j int) bool { return starts[i].Before(starts[j]) })
	sort.Slice(arrivals, func(i, j int) bool { return arrivals[i].Before(arrivals[j]) })
	n := min(len(starts), len(arrivals))
	if n == 0 {
		b.Fatal("no request answered")
	}
	d := make([]time.Duration, n)
	for i := range n {
		d[i] = arrivals[i].Sub(starts[i])
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	b.ReportMetric(float64(d[n*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(d[n-1].Microseconds())/1000, "max-ms")
}
