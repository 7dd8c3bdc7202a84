package eviction_test

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

// An eviction and a delete answered 429 with Retry-After in API Priority
// and Fairness' plain text, sent through a plain clientset: one request
// each reaches the server (client-go alone sends up to 11), and the
// answer reads as throttling with the wait asked for.
func TestSendOnceWithAPlainClientset(t *testing.T) {
	for _, deleteInstead := range []bool{false, true} {
		var requests atomic.Int32
		var path, method string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			requests.Add(1)
			path, method = r.URL.Path, r.Method
			w.Header().Set("Retry-After", "7")
			http.Error(w, "Too many requests, please try again later.", http.StatusTooManyRequests)
		}))
		cs, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = eviction.Send(ctx, cs, "shop", "web-1", metav1.DeleteOptions{}, deleteInstead)
		cancel()
		srv.Close()
		a := eviction.Read(err)
		want := map[bool]string{false: "POST /api/v1/namespaces/shop/pods/web-1/eviction", true: "DELETE /api/v1/namespaces/shop/pods/web-1"}[deleteInstead]
		if got := method + " " + path; got != want || a.Kind != eviction.Throttled || a.RetryAfter != 7*time.Second || requests.Load() != 1 {
			t.Errorf("sent %q, answer %+v after %d request(s); want %q, throttled, Retry-After 7s, after 1", got, a, requests.Load(), want)
		}
	}
}
