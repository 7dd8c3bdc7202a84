package timeline

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/probe"
)

// BenchmarkDeliveryToLineUnderProbe is BenchmarkDeliveryToLine while a probe
// sends 200 requests a second (each on a new connection) to a loopback
// server and the follower records every bucket: the difference between the
// two p99-ms metrics is what the probe adds to the other tracks' lines
// (target: 5 ms or less). Notifications are 2 ms apart, so that 2000 of them
// run beside about 800 requests.
func BenchmarkDeliveryToLineUnderProbe(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	ch := make(chan probe.Bucket, 64)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		probe.New(probe.Config{URL: u, Rate: probe.MaxRate, Timeout: probe.DefaultTimeout}).Run(ctx, func(bk probe.Bucket) {
			select {
			case ch <- bk:
			case <-ctx.Done():
			}
		})
	}()
	deliveryToLine(b, ch, 2*time.Millisecond)
	cancel()
	<-done
}
