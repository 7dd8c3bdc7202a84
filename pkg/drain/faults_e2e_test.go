package drain_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// flakyTransport wraps the client's transport and fails requests on demand:
// loseEvictions eviction answers are lost after the server carried the
// eviction out (the connection drops on the way back), failReads pod reads
// are refused before they are sent, and while down every request is.
type flakyTransport struct {
	next http.RoundTripper

	mu                       sync.Mutex
	loseEvictions, failReads int
	down                     bool
	lost, refused            int
}

func (f *flakyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	f.mu.Lock()
	eviction := req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/eviction")
	podRead := req.Method == http.MethodGet && strings.Contains(req.URL.Path, "/pods")
	switch {
	case f.down:
		f.refused++
		f.mu.Unlock()
		return nil, refused
	case podRead && f.failReads > 0:
		f.failReads--
		f.refused++
		f.mu.Unlock()
		return nil, refused
	case eviction && f.loseEvictions > 0:
		f.loseEvictions--
		f.lost++
		f.mu.Unlock()
		resp, err := f.next.RoundTrip(req)
		if err == nil {
			_ = resp.Body.Close()
		}
		return nil, &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	}
	f.mu.Unlock()
	return f.next.RoundTrip(req)
}

func (f *flakyTransport) set(fn func(f *flakyTransport)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

// flakyDrainer is a Drainer of the local cluster through a flakyTransport.
func flakyDrainer(t *testing.T, f *fixture, timeout time.Duration) (*drain.Drainer, *flakyTransport) {
	t.Helper()
	flaky := &flakyTransport{}
	cfg := rest.CopyConfig(f.env.RESTConfig)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { flaky.next = rt; return flaky })
	cfg.QPS, cfg.Burst = 50, 100
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &drain.Drainer{Client: client, Timeout: timeout, Flags: preflight.Flags{GracePeriodSeconds: -1},
		Backoff: drain.Backoff{Base: 300 * time.Millisecond, Cap: time.Second}}, flaky
}

func (f *fixture) node(name string) *corev1.Node {
	f.t.Helper()
	n, err := f.env.Client.CoreV1().Nodes().Get(f.ctx, name, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return n
}

// onStart calls fn when the evictions start.
func onStart(fn func()) drain.Events {
	return drain.Events{EvictionsStarted: func(string, []drain.PodProgress) { fn() }}
}

// Eviction answers lost after the server evicted the pods, and any pod
// read refused: the drain reads each pod again instead of assuming, sends no
// second eviction for a pod found terminating, and ends drained without
// claiming the evictions as certain.
func TestDrainThroughLostEvictionAnswers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, _ := f.onOneOfTwo("web", "web", 2)
	d, flaky := flakyDrainer(t, f, 60*time.Second)
	d.Events = onStart(func() { flaky.set(func(f *flakyTransport) { f.loseEvictions, f.failReads = 2, 3 }) })
	res, err := d.Drain(f.ctx, f.node(a))
	if err != nil || res.Outcome != drain.OutcomeDrained {
		t.Fatalf("outcome %s, err %v, want drained: %+v", res.Outcome, err, res)
	}
	for _, p := range res.Pods {
		if p.GoneBy != drain.GoneByLostAnswer || p.Attempts != 1 {
			t.Errorf("pod %s: goneBy %q after %d eviction(s), want %q after 1", p.Name, p.GoneBy, p.Attempts, drain.GoneByLostAnswer)
		}
	}
	// The pod reads refused are those the drain made: it reads the pods
	// through its watch, and lists them only when that watch is behind,
	// which the machine's load decides.
	t.Logf("refused %d pod reads", flaky.refused)
	if flaky.lost != 2 {
		t.Errorf("lost %d answers, want 2", flaky.lost)
	}
	if n := len(f.pods("app=web", onNode(a))); n != 0 {
		t.Errorf("%d pods left on %s", n, a)
	}
}

// The API server unreachable for 4 s as the evictions start: a short
// outage, the drain waits it out and drains.
func TestDrainThroughShortOutage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, _ := f.onOneOfTwo("web", "web", 2)
	d, flaky := flakyDrainer(t, f, 60*time.Second)
	d.Events = onStart(func() {
		flaky.set(func(f *flakyTransport) { f.down = true })
		time.AfterFunc(4*time.Second, func() { flaky.set(func(f *flakyTransport) { f.down = false }) })
	})
	res, err := d.Drain(f.ctx, f.node(a))
	if err != nil || res.Outcome != drain.OutcomeDrained || res.After == nil || !res.After.Known {
		t.Fatalf("outcome %s, err %v, want drained after a fresh read: %+v", res.Outcome, err, res)
	}
	for _, p := range res.Pods {
		if p.State != drain.StateGone || p.Attempts < 1 {
			t.Errorf("pod %+v, want gone", p)
		}
	}
	if flaky.refused == 0 {
		t.Errorf("no request was refused: the outage did not happen")
	}
}

// The API server unreachable from the start of the evictions on, past
// --timeout: Drain returns an error (exit 1) and the pods' state is
// "state unknown", not counted as evicted or left.
func TestDrainClusterStaysUnreachable(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, _ := f.onOneOfTwo("web", "web", 2)
	d, flaky := flakyDrainer(t, f, 3*time.Second)
	d.Events = onStart(func() { flaky.set(func(f *flakyTransport) { f.down = true }) })
	ctx, cancel := context.WithTimeout(f.ctx, 2*time.Minute)
	defer cancel()
	res, err := d.Drain(ctx, f.node(a))
	if err == nil || res.After == nil || res.After.Known {
		t.Fatalf("err %v, after %+v: want an error and the node's state unknown", err, res.After)
	}
	for _, p := range res.Pods {
		if p.State != drain.StateUnknown {
			t.Errorf("pod %s: %s, want %s", p.Name, p.State, drain.StateUnknown)
		}
	}
}

// The way to the API server cut for 12 s mid-drain (a loopback proxy
// closes every connection and refuses new ones), through the real kubectl:
// the drain rides it out, the budget holds, and the summary matches a
// fresh read of the cluster afterwards. A cut can drop an eviction after
// the API server recorded the pod in the budget's status.disruptedPods but
// before it deleted the pod; the budget then refuses until the disruption
// controller forgets that entry (2 min), so --timeout allows for it.
func TestDrainThroughConnectionCut(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, b := f.onOneOfTwo("web", "web", 3)
	f.pdb("web", "web", intOrStr(2), nil, nil, 3)
	proxy, kc := e2e.ProxyTo(t, f.env.Kubeconfig)
	w := watchReady(t, f, "app=web")
	var res e2e.Result
	done := make(chan struct{})
	go func() {
		defer close(done)
		res = e2e.RunKubectlFor(t, 5*time.Minute, []string{"KUBECONFIG=" + kc}, "graceful", "drain", "node", a, "--timeout", "200s")
	}()
	e2e.WaitFor(t, time.Minute, "node "+a+" cordoned", func() bool { return f.unschedulable(a) })
	proxy.Cut(12 * time.Second)
	<-done
	lowest := w.Lowest()
	t.Logf("exit %d\n--- stdout\n%s--- stderr\n%s", res.ExitCode, res.Stdout, res.Stderr)
	expectDrainedAll(t, res, a, 3)
	if lowest < 2 {
		t.Errorf("Ready pods dropped to %d, the PDB says at least 2", lowest)
	}
	if n := len(f.pods("app=web", onNode(a))); n != 0 || !f.unschedulable(a) {
		t.Errorf("after the drain: %d pods on %s, unschedulable %v; want 0 and cordoned", n, a, f.unschedulable(a))
	}
	f.waitPods("app=web", 3, func(p *corev1.Pod) bool { return p.Spec.NodeName == b && isReady(p) })
}

// expectDrainedAll checks exit 0 and a summary that accounts for all n
// pods as gone: evicted, or gone after an eviction whose answer was lost
// (the server evicted it, then a fault dropped the answer; read again, it
// was gone).
func expectDrainedAll(t *testing.T, res e2e.Result, node string, n int) {
	t.Helper()
	expect(t, res, 0)
	for lost := 0; lost <= n; lost++ {
		want := fmt.Sprintf("node %s drained: %d pod(s) evicted", node, n-lost)
		if lost > 0 {
			want += fmt.Sprintf(", %d gone after an eviction whose answer was lost", lost)
		}
		if strings.Contains(res.Stdout, want+" in ") {
			return
		}
	}
	t.Errorf("the summary does not account for the %d pods as gone:\n%s", n, res.Stdout)
}
