package drain_test

import (
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// throttledDrain runs `kubectl graceful drain node ARGS` through a proxy
// that throttles what throttle says, and returns what it printed and how
// long it took.
func throttledDrain(t *testing.T, f *fixture, throttle func(*http.Request) (int, bool), args ...string) (e2e.Result, time.Duration) {
	t.Helper()
	kc := f.env.ThrottlingProxy(t, throttle)
	start := time.Now()
	res := e2e.RunKubectl(t, []string{"KUBECONFIG=" + kc}, append([]string{"graceful", "drain", "node"}, args...)...)
	took := time.Since(start)
	t.Logf("drain node %s: exit %d after %s\n--- stdout\n%s--- stderr\n%s", strings.Join(args, " "), res.ExitCode, took, res.Stdout, res.Stderr)
	return res, took
}

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
	res, _ := throttledDrain(t, f, posts.throttle, a, "--timeout", "60s")
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

// oneReplicaOnANode makes a fixture with one pod of web on a fresh node,
// and room for its replacement on another.
func oneReplicaOnANode(t *testing.T) (*fixture, string) {
	f := newFixture(t)
	a, _ := f.onOneOfTwo("web", "web", 1)
	return f, a
}

// nodeGets throttles the first n reads of node with Retry-After seconds.
func nodeGets(node string, n, seconds int) func(r *http.Request) (int, bool) {
	var mu sync.Mutex
	seen := 0
	return func(r *http.Request) (int, bool) {
		if r.Method != http.MethodGet || r.URL.Path != "/api/v1/nodes/"+node {
			return 0, false
		}
		mu.Lock()
		defer mu.Unlock()
		seen++
		return seconds, seen <= n
	}
}

// The node lookup answered 429 with a Retry-After (35 s) longer than the
// 30 s the drain waits for an answer before changing anything, and longer
// than --timeout: it ends at once, named as throttling (client-go used to
// sleep in it until the 30 s passed, and the drain said the API server did
// not answer), exit 1, nothing changed.
func TestDrainThrottledPastTimeout(t *testing.T) {
	t.Parallel()
	f, a := oneReplicaOnANode(t)
	res, took := throttledDrain(t, f, nodeGets(a, 1<<30, 35), a, "--timeout", "10s")
	want := "throttled by the API server (HTTP 429): it asked to wait 35s (Retry-After) before the next request, past --timeout 10s"
	if res.ExitCode != 1 || !strings.Contains(res.Stderr, want) || strings.Contains(res.Stderr, "did not answer") || took > 8*time.Second {
		t.Errorf("exit %d after %s, want 1 at once with %q", res.ExitCode, took, want)
	}
	if f.unschedulable(a) {
		t.Errorf("node %s was cordoned", a)
	}
}

// The same Retry-After (31 s, past the 30 s) once, with no --timeout: the
// drain waits it out and drains.
func TestDrainWaitsOutALongRetryAfter(t *testing.T) {
	t.Parallel()
	f, a := oneReplicaOnANode(t)
	res, took := throttledDrain(t, f, nodeGets(a, 1, 31), a)
	expect(t, res, 0, "drained: 1 pod(s) evicted")
	if took < 31*time.Second {
		t.Errorf("drained after %s, before the 31 s the server asked for", took)
	}
}

// The library with a plain clientset (kubernetes.NewForConfig, no
// transport of the plugin's): the first eviction of each pod answered 429
// with Retry-After 1 s is seen and counted, not sent again by client-go
// itself. Each pod's Attempts is what the proxy saw: 2.
func TestDrainWithAPlainClientsetCountsThrottling(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, _ := f.onOneOfTwo("web", "web", 2)
	posts := &evictionPosts{seen: map[string]int{}}
	cfg, err := clientcmd.BuildConfigFromFlags("", f.env.ThrottlingProxy(t, posts.throttle))
	if err != nil {
		t.Fatal(err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var throttled []string
	d := &drain.Drainer{Client: client, Timeout: time.Minute, Flags: preflight.Flags{GracePeriodSeconds: -1},
		Events: drain.Events{PodChanged: func(_ string, p drain.PodProgress) {
			mu.Lock()
			defer mu.Unlock()
			if strings.Contains(p.Cause, "throttled by the API server (HTTP 429, Retry-After 1s)") {
				throttled = append(throttled, p.Name)
			}
		}}}
	res, err := d.Drain(f.ctx, f.node(a))
	if err != nil || res.Outcome != drain.OutcomeDrained {
		t.Fatalf("drain: %v, outcome %+v", err, res)
	}
	posts.mu.Lock()
	defer posts.mu.Unlock()
	for _, p := range res.Pods {
		if p.Attempts != 2 || posts.seen[p.Name] != 2 {
			t.Errorf("pod %s: Attempts %d, the proxy saw %d eviction requests; want 2 and 2", p.Name, p.Attempts, posts.seen[p.Name])
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(res.Pods) != 2 || len(throttled) == 0 {
		t.Errorf("pods %d (want 2), progress naming the throttling: %v", len(res.Pods), throttled)
	}
}
