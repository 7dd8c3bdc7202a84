package drain_test

import (
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// evictionPosts counts the eviction requests that reached the proxy, per
// pod name, and throttles the first of each.
type evictionPosts struct {
	mu   sync.Mutex
	seen map[string]int
}

func (p *evictionPosts) throttle(r *http.Request) (int, bool) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/eviction") {
		return 0, false
	}
	parts := strings.Split(r.URL.Path, "/") // .../pods/NAME/eviction
	pod := parts[len(parts)-2]
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen[pod]++
	return 1, p.seen[pod] == 1
}

// The first eviction of each pod answered 429 with Retry-After 1 s, as
// API Priority and Fairness does: client-go would send it again itself,
// unseen. Each request that reached the server is an attempt: ATTEMPTS 2,
// as many as the proxy counted, and the progress shows the throttling.
func TestDrainCountsThrottledEvictions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, _ := f.onOneOfTwo("web", "web", 2)
	pods := f.pods("app=web", onNode(a))
	posts := &evictionPosts{seen: map[string]int{}}
	kc := f.env.ThrottlingProxy(t, posts.throttle)

	res := e2e.RunKubectl(t, []string{"KUBECONFIG=" + kc}, "graceful", "drain", "node", a, "--timeout", "60s")
	t.Logf("exit %d\n--- stdout\n%s--- stderr\n%s", res.ExitCode, res.Stdout, res.Stderr)
	expect(t, res, 0, "throttled by the API server (HTTP 429, Retry-After 1s): next attempt in", "drained: 2 pod(s) evicted")
	for _, p := range pods {
		row := regexp.MustCompile(regexp.QuoteMeta(f.ns+"/"+p.Name) + `\s*│\s*evicted\s*│\s*(\d+)\s*│`).FindStringSubmatch(res.Stdout)
		posts.mu.Lock()
		sent := posts.seen[p.Name]
		posts.mu.Unlock()
		if row == nil || row[1] != "2" || sent != 2 {
			t.Errorf("pod %s: ATTEMPTS %v, the proxy saw %d eviction requests; want 2 and 2", p.Name, row, sent)
		}
	}
}
