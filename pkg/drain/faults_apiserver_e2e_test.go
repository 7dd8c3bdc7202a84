package drain_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// faultFixture is a fixture (namespace, nodes) on the fault cluster.
func faultFixture(t *testing.T, fe *e2e.FaultEnv) *fixture {
	return &fixture{t: t, env: fe.Env, ns: fe.Namespace(t), ctx: context.Background()}
}

// readyCounter follows the Ready, not terminating pods of a selector
// through an informer, which lists again after the API server comes back,
// and remembers the lowest count it saw.
type readyCounter struct {
	mu     sync.Mutex
	store  cache.Store
	lowest int
	stop   chan struct{}
}

func countReady(t *testing.T, f *fixture, selector string) *readyCounter {
	t.Helper()
	factory := informers.NewSharedInformerFactoryWithOptions(f.env.Client, 0, informers.WithNamespace(f.ns),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = selector }))
	inf := factory.Core().V1().Pods().Informer()
	c := &readyCounter{store: inf.GetStore(), lowest: -1, stop: make(chan struct{})}
	update := func(any) { c.observe() }
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: update, DeleteFunc: update,
		UpdateFunc: func(_, n any) { c.observe() }})
	factory.Start(c.stop)
	if !cache.WaitForCacheSync(c.stop, inf.HasSynced) {
		t.Fatal("pod informer never synced")
	}
	c.observe()
	t.Cleanup(func() { close(c.stop) })
	return c
}

func (c *readyCounter) observe() {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, o := range c.store.List() {
		if p := o.(*corev1.Pod); p.DeletionTimestamp == nil && isReady(p) {
			n++
		}
	}
	if c.lowest < 0 || n < c.lowest {
		c.lowest = n
	}
}

// Lowest is the lowest number of Ready pods seen since the start.
func (c *readyCounter) Lowest() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lowest
}

// summaryLine is the drain's last line about node (drained or not).
func summaryLine(stdout, node string) string {
	m := regexp.MustCompile(`(?m)^node `+regexp.QuoteMeta(node)+` (NOT )?drained.*$`).FindAllString(stdout, -1)
	if len(m) == 0 {
		return "(no summary line)"
	}
	return m[len(m)-1]
}

// drainUnderFault drains a node holding 3 pods of web under a PDB with
// minAvailable 2 (so evictions wait on the budget while the replacements
// start on a second node), hits the API server with fault once the node
// is cordoned and the first eviction is in, and checks what a user would:
// the exit code and summary against a fresh read of the cluster, and the
// budget (Ready pods watched throughout).
func drainUnderFault(t *testing.T, fe *e2e.FaultEnv, fault func()) string {
	f := faultFixture(t, fe)
	a, b := f.onOneOfTwo("web", "web", 3)
	f.pdb("web", "web", intOrStr(2), nil, nil, 3)
	ready := countReady(t, f, "app=web")
	// An eviction the API server admitted (the budget's
	// status.disruptedPods names the pod) whose delete the fault cut off
	// holds the budget until the disruption controller drops the entry,
	// 2 minutes later (DeletionTimeout in pkg/controller/disruption): the
	// drain's --timeout covers that wait, and the test waits for the
	// drain's own end.
	wait := drainAsyncFor(f, 4*time.Minute, a, "--timeout", "200s")
	e2e.WaitFor(t, time.Minute, "node "+a+" cordoned and an eviction in", func() bool {
		return f.unschedulable(a) && len(f.pods("app=web", onNode(a))) < 3
	})
	fault()
	res := wait()
	summary := summaryLine(res.Stdout, a)
	left := len(f.pods("app=web", onNode(a)))
	switch {
	case res.ExitCode == 0:
		expectDrainedAll(t, res, a, 3)
		if left != 0 {
			t.Errorf("the drain claims %s drained, %d pod(s) still on it", a, left)
		}
	default:
		// An honest failure is still a failure of the drain: the fault
		// was short and --timeout long.
		t.Errorf("exit %d, want 0 (drained); %d pod(s) left on the node: %s", res.ExitCode, left, summary)
	}
	if strings.HasPrefix(summary, "node "+a+" drained") && left != 0 {
		t.Errorf("the summary claims drained with %d pod(s) left", left)
	}
	if !f.unschedulable(a) {
		t.Errorf("node %s is schedulable after the drain", a)
	}
	if low := ready.Lowest(); low < 2 {
		t.Errorf("Ready pods dropped to %d, the PDB says at least 2", low)
	}
	f.waitPods("app=web", 3, func(p *corev1.Pod) bool { return p.Spec.NodeName == b && isReady(p) })
	return fmt.Sprintf("exit %d, %q, lowest Ready %d", res.ExitCode, summary, ready.Lowest())
}

// The API server frozen (SIGSTOP) for 15 s while a drain waits on a PDB:
// the drain rides it out and ends drained, the budget held.
func TestDrainAPIServerPaused(t *testing.T) {
	t.Parallel()
	e2e.RepeatFault(t, func(t *testing.T, fe *e2e.FaultEnv) string {
		return drainUnderFault(t, fe, func() { fe.PauseAPIServer(15 * time.Second) })
	})
}

// The API server killed (SIGKILL) and started again 5 s later while a
// drain waits on a PDB: evictions in flight lose their answers, the drain
// reads the pods again and ends drained, the budget held.
func TestDrainAPIServerRestarted(t *testing.T) {
	t.Parallel()
	e2e.RepeatFault(t, func(t *testing.T, fe *e2e.FaultEnv) string {
		var down time.Duration
		out := drainUnderFault(t, fe, func() { down = fe.APIServerDown(5*time.Second, nil) })
		return fmt.Sprintf("API unavailable %s; %s", down.Round(100*time.Millisecond), out)
	})
}

// The API server down (killed, started again 6 s later) when the drain
// starts: the node lookup and the preflight wait it out, then the drain
// cordons and drains as usual.
func TestDrainAPIServerDownAtStart(t *testing.T) {
	t.Parallel()
	e2e.RepeatFault(t, func(t *testing.T, fe *e2e.FaultEnv) string {
		f := faultFixture(t, fe)
		a, _ := f.onOneOfTwo("web", "web", 2)
		var wait func() e2e.Result
		start := time.Now()
		down := fe.APIServerDown(6*time.Second, func() { wait = drainAsync(f, a, "--timeout", "90s") })
		res := wait()
		took := time.Since(start)
		expectDrainedAll(t, res, a, 2)
		if left := len(f.pods("app=web", onNode(a))); left != 0 || !f.unschedulable(a) {
			t.Errorf("after the drain: %d pod(s) on %s, cordoned %v", left, a, f.unschedulable(a))
		}
		if took < down {
			t.Errorf("the drain ended %s after it started, before the API server was back (%s)", took, down)
		}
		if strings.TrimSpace(res.Stderr) != "" {
			t.Errorf("stderr: %s", res.Stderr)
		}
		return fmt.Sprintf("API unavailable %s; exit %d after %s, %q", down.Round(100*time.Millisecond), res.ExitCode, took.Round(100*time.Millisecond), summaryLine(res.Stdout, a))
	})
}
