package drain

import (
	"context"
	"errors"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// refuseLists makes the first n lists of resource fail as a refused
// connection does, and counts the lists.
func refuseLists(cs *fake.Clientset, resource string, n int) *int {
	calls := 0
	cs.PrependReactor("list", resource, func(k8stesting.Action) (bool, runtime.Object, error) {
		calls++
		if calls <= n {
			return true, nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
		}
		return false, nil, nil
	})
	return &calls
}

// The API server refusing connections for the first reads of the
// preflight: the drain waits it out and goes on (here a dry run).
func TestPreflightRetriedThroughShortOutage(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}
	cs := fake.NewClientset(node)
	calls := refuseLists(cs, "nodes", 3)
	d := &Drainer{Client: cs, DryRun: true, Flags: preflight.Flags{GracePeriodSeconds: -1}, Backoff: Backoff{Base: time.Millisecond, Cap: time.Millisecond}}
	res, err := d.Drain(context.Background(), node)
	if err != nil || res.Outcome != OutcomeDryRun {
		t.Fatalf("outcome %s, err %v: want the dry run after the outage", res.Outcome, err)
	}
	if *calls != 4 {
		t.Errorf("%d node lists, want 3 refused and 1 answered", *calls)
	}
}

// An outage longer than the wait: exit 1 (an error), saying how long the
// API server did not answer, and nothing changed.
func TestPreflightOutageTooLong(t *testing.T) {
	defer func(w time.Duration) { outageWait = w }(outageWait)
	outageWait = 50 * time.Millisecond
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}
	cs := fake.NewClientset(node)
	refuseLists(cs, "nodes", 1<<30)
	d := &Drainer{Client: cs, Flags: preflight.Flags{GracePeriodSeconds: -1}, Backoff: Backoff{Base: time.Millisecond, Cap: 5 * time.Millisecond}}
	res, err := d.Drain(context.Background(), node)
	if err == nil || res.Outcome != OutcomeError || !strings.Contains(err.Error(), "did not answer for 50ms") {
		t.Fatalf("outcome %s, err %v: want an error naming the wait", res.Outcome, err)
	}
	var op *net.OpError
	if !errors.As(err, &op) {
		t.Errorf("the error %v does not wrap the refused connection", err)
	}
	for _, a := range cs.Actions() {
		if a.GetVerb() == "patch" {
			t.Errorf("the node was changed: %v", a)
		}
	}
}

// Ctrl-C during the outage ends the wait at once: interrupted, no error.
func TestPreflightOutageInterrupted(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}
	cs := fake.NewClientset(node)
	refuseLists(cs, "nodes", 1<<30)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	d := &Drainer{Client: cs, Flags: preflight.Flags{GracePeriodSeconds: -1}, Backoff: Backoff{Base: 10 * time.Millisecond, Cap: 10 * time.Millisecond}}
	start := time.Now()
	res, err := d.Drain(ctx, node)
	if err != nil || res.Outcome != OutcomeInterrupted || time.Since(start) > 5*time.Second {
		t.Errorf("outcome %s, err %v after %s: want interrupted at once", res.Outcome, err, time.Since(start))
	}
}

// throttledThen answers the first call with a 429 asking for a 1 s wait
// (Retry-After), then succeeds.
func throttledThen() (func(context.Context) (int, error), *int) {
	calls := 0
	return func(context.Context) (int, error) {
		calls++
		if calls == 1 {
			return 0, apierrors.NewTooManyRequests("Too many requests, please try again later.", 1)
		}
		return 42, nil
	}, &calls
}

// A Retry-After past the outage window is waited for when --timeout
// allows it (none, here), and the call after it succeeds.
func TestThroughOutageWaitsAThrottlingRetryAfter(t *testing.T) {
	defer func(w time.Duration) { outageWait = w }(outageWait)
	outageWait = 50 * time.Millisecond
	read, calls := throttledThen()
	start := time.Now()
	v, err := ThroughOutage(context.Background(), Backoff{Base: time.Millisecond, Cap: time.Millisecond}, 0, read)
	if err != nil || v != 42 || *calls != 2 || time.Since(start) < time.Second {
		t.Errorf("got %d, %v after %d calls in %s; want 42 after 2 calls, 1 s apart", v, err, *calls, time.Since(start))
	}
}

// A Retry-After past --timeout ends the wait at once, named as
// throttling, not as an API server that did not answer.
func TestThroughOutageThrottledPastTimeout(t *testing.T) {
	read, calls := throttledThen()
	start := time.Now()
	_, err := ThroughOutage(context.Background(), Backoff{Base: time.Millisecond, Cap: time.Millisecond}, 500*time.Millisecond, read)
	want := "throttled by the API server (HTTP 429): it asked to wait 1s (Retry-After) before the next request, past --timeout 500ms"
	if err == nil || !strings.HasPrefix(err.Error(), want) || *calls != 1 || time.Since(start) > 400*time.Millisecond {
		t.Errorf("error %v after %d call(s) in %s; want %q at once", err, *calls, time.Since(start), want)
	}
}
