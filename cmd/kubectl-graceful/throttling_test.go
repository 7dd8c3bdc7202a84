package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/eviction"
)

// A server that throttles every request, in API Priority and Fairness'
// plain text or as a Status, read through client-go with throttlingSeen:
// one request sent, not client-go's hidden 10, and the answer throttling
// with its Retry-After.
func TestThrottlingSeenEndsClientGosHiddenRetries(t *testing.T) {
	for name, answer := range map[string]func(w http.ResponseWriter){
		"priority and fairness": func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "7")
			http.Error(w, "Too many requests, please try again later.", http.StatusTooManyRequests)
		},
		"unavailable": func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "7")
			http.Error(w, "upstream unavailable", http.StatusServiceUnavailable)
		},
		"a Status": func(w http.ResponseWriter) {
			w.Header().Set("Retry-After", "7")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"slow down","reason":"TooManyRequests","details":{"retryAfterSeconds":7},"code":429}`))
		},
	} {
		t.Run(name, func(t *testing.T) {
			var requests atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				requests.Add(1)
				answer(w)
			}))
			defer srv.Close()
			cfg := &rest.Config{Host: srv.URL}
			cfg.Wrap(throttlingSeen)
			cs, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, err = cs.CoreV1().Nodes().Get(ctx, "n1", metav1.GetOptions{})
			a := eviction.Read(err)
			want := eviction.Throttled
			if name == "unavailable" {
				want = eviction.Lost // a 5xx: the drain retries it as a transient failure
			}
			if a.Kind != want || a.RetryAfter != 7*time.Second || requests.Load() != 1 {
				t.Errorf("answer %+v after %d request(s), want %s, Retry-After 7s, after 1", a, requests.Load(), want)
			}
		})
	}
}
