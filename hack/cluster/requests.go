package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/realnode"
)

// requestLoop is the demo's own count of requests to a Service on the real
// nodes, apart from anything the plugin measures: GET http://ip/ every 10
// ms on a new connection, at most 18000 requests and 3 minutes, until
// SIGINT or SIGTERM. Then it prints one line with the counts and, when
// some failed, one with the failures by cause and one with the first and
// the last failure, in seconds since the unix time in milliseconds that
// t0File holds (the demo writes it as the drain starts: the drain's own
// clock), or since the loop's start when it is empty.
func requestLoop(name, ip, t0File string) error {
	if err := realnode.CheckRoute(ip); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	c := http.Client{Timeout: 500 * time.Millisecond, Transport: &http.Transport{DisableKeepAlives: true}}
	type failure struct {
		at  time.Time
		err string
	}
	var failed []failure
	start, sent := time.Now(), 0
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for sent < 18000 {
		select {
		case <-ctx.Done():
		case <-tick.C:
			at := time.Now()
			resp, err := c.Get("http://" + ip + "/")
			sent++
			if err == nil {
				if resp.StatusCode != http.StatusOK {
					err = fmt.Errorf("%s", resp.Status)
				}
				resp.Body.Close()
			}
			if err != nil {
				failed = append(failed, failure{at, shortError(err)})
			}
			continue
		}
		break
	}
	t0 := start
	if b, err := os.ReadFile(t0File); err == nil {
		if ms, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
			t0 = time.UnixMilli(ms)
		}
	}
	fmt.Printf("%s: %d requests to %s, %d failed\n", name, sent, ip, len(failed))
	if len(failed) == 0 {
		return nil
	}
	byCause := map[string]int{}
	for _, f := range failed {
		byCause[f.err]++
	}
	causes := make([]string, 0, len(byCause))
	for c, n := range byCause {
		causes = append(causes, fmt.Sprintf("%s x%d", c, n))
	}
	sort.Strings(causes)
	fmt.Printf("%s: failures by cause: %s\n", name, strings.Join(causes, ", "))
	fmt.Printf("%s: first failure at %+.3f s, last at %+.3f s on the drain's clock\n", name,
		failed[0].at.Sub(t0).Seconds(), failed[len(failed)-1].at.Sub(t0).Seconds())
	return nil
}

// shortError keeps the last part of a request error ("connection
// refused"), "timeout" for the client's own timeout.
func shortError(err error) string {
	if errors.Is(err, context.DeadlineExceeded) || os.IsTimeout(err) {
		return "timeout (500 ms)"
	}
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 {
		s = s[i+2:]
	}
	return s
}
