package ingress

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

// fakeTraefik serves GET /api/http/services with the body set last, or a
// 500 while down.
type fakeTraefik struct {
	mu   sync.Mutex
	body string
	down bool
}

func (f *fakeTraefik) set(body string, down bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.body, f.down = body, down
}

func (f *fakeTraefik) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.URL.Path != "/api/http/services" || f.down {
		http.Error(w, "down", http.StatusInternalServerError)
		return
	}
	_, _ = w.Write([]byte(f.body))
}

const (
	serving = `[{"name":"api@internal","provider":"internal"},{"name":"ns-web-80@kubernetes","loadBalancer":{"servers":[{"url":"http://10.0.0.5:8080"},{"url":"http://10.0.0.6:8080"}]}}]`
	fenced  = `[{"name":"ns-web-80@kubernetes","loadBalancer":{"servers":[{"url":"http://10.0.0.5:8080","fenced":true},{"url":"http://10.0.0.6:8080"}]}}]`
	gone    = `[]`
)

// TestTraefikStream reads a Traefik API that changes through a
// listwatch.Stream: the first List holds the load-balancer services (not
// the internal ones without servers), a server fenced is a MODIFIED with
// the flag, an API that fails opens a gap and closes it when it answers
// again, and a service gone is a DELETED, in that order.
func TestTraefikStream(t *testing.T) {
	api := &fakeTraefik{body: serving}
	srv := httptest.NewServer(api)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s := &listwatch.Stream{Name: "Ingress controller", LW: TraefikListWatch(srv.URL, 10*time.Millisecond, srv.Client()), RetryDelay: 20 * time.Millisecond}
	out := make(chan listwatch.Notice)
	go s.Run(ctx, out)
	next := func(want listwatch.Kind) listwatch.Notice {
		t.Helper()
		select {
		case n := <-out:
			if n.Kind != want {
				t.Fatalf("notice %v (%+v), want kind %v", n.Kind, n, want)
			}
			return n
		case <-ctx.Done():
			t.Fatalf("no notice of kind %v", want)
		}
		return listwatch.Notice{}
	}
	l := next(listwatch.KindList)
	if len(l.List) != 1 {
		t.Fatalf("first List: %d services, want 1 (the one with servers)", len(l.List))
	}
	if name, servers, _ := Servers(l.List[0]); name != "ns-web-80@kubernetes" || len(servers) != 2 || servers[0].Fenced {
		t.Fatalf("listed %s %+v", name, servers)
	}
	api.set(fenced, false)
	n := next(listwatch.KindEvent)
	if _, servers, _ := Servers(n.Event.Object); n.Event.Type != watch.Modified || !servers[0].Fenced || servers[1].Fenced {
		t.Fatalf("after fencing: %s %+v", n.Event.Type, servers)
	}
	api.set(fenced, true)
	next(listwatch.KindGapOpen)
	api.set(gone, false)
	next(listwatch.KindGapClose)
	if n := next(listwatch.KindEvent); n.Event.Type != watch.Deleted {
		t.Fatalf("after the service left: %s, want DELETED", n.Event.Type)
	}
}
