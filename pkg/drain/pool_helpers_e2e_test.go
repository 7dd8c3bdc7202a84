package drain_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// drainPoolLabel marks the nodes a pool test drains with -l.
const drainPoolLabel = "drain.graceful.test/drain-pool"

// poolFixture is a test's pool of nodes to drain and its spare nodes, all
// of one group (f.pool's label) that its Deployments are pinned to.
type poolFixture struct {
	*fixture
	pool, spare []string
	// group selects the pool and spare nodes; selector the pool only.
	group    map[string]string
	selector string
}

// newPoolFixture makes poolSize nodes to drain and spares empty nodes
// beside them.
func newPoolFixture(t *testing.T, poolSize, spares int) *poolFixture {
	t.Helper()
	f := newFixture(t)
	p := &poolFixture{fixture: f}
	for range poolSize {
		p.pool = append(p.pool, f.env.Node(t))
	}
	for range spares {
		p.spare = append(p.spare, f.env.Node(t))
	}
	p.group = f.pool(append(append([]string{}, p.pool...), p.spare...)...)
	value := "dp-" + rand.String(6)
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, drainPoolLabel, value)
	for _, n := range p.pool {
		if _, err := f.env.Client.CoreV1().Nodes().Patch(f.ctx, n, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	p.selector = drainPoolLabel + "=" + value
	return p
}

// others returns the nodes of the pool and the spares but keep.
func (p *poolFixture) others(keep string) []string {
	var out []string
	for _, n := range append(append([]string{}, p.pool...), p.spare...) {
		if n != keep {
			out = append(out, n)
		}
	}
	return out
}

// budgetKinds are the PDB shapes the pool tests cycle through.
var budgetKinds = []struct {
	name                         string
	minAvailable, maxUnavailable *intstr.IntOrString
}{
	{"min2", intOrStr(2), nil},
	{"max1", nil, intOrStr(1)},
	{"min50", ptr.To(intstr.FromString("50%")), nil},
	{"max50", nil, ptr.To(intstr.FromString("50%"))},
}

// deployOnPool creates apps Deployments of replicas pods, each under a PDB
// of the next budgetKinds shape, all on the pool nodes (the spare ones are
// cordoned while they start), and returns each app's desiredHealthy.
func (p *poolFixture) deployOnPool(apps int, replicas int32) map[string]int32 {
	p.t.Helper()
	for _, s := range p.spare {
		p.cordon(s, true)
	}
	desired := map[string]int32{}
	for i := range apps {
		k := budgetKinds[i%len(budgetKinds)]
		app := fmt.Sprintf("app%d-%s", i, k.name)
		p.deploy(app, app, replicas, p.group, nil)
		p.pdb(app, app, k.minAvailable, k.maxUnavailable, nil, replicas)
		got, err := p.env.Client.PolicyV1().PodDisruptionBudgets(p.ns).Get(p.ctx, app, metav1.GetOptions{})
		if err != nil {
			p.t.Fatal(err)
		}
		desired[app] = got.Status.DesiredHealthy
	}
	for _, s := range p.spare {
		p.cordon(s, false)
	}
	return desired
}

// poolWatcher follows the pods of the test's namespace and the pool's
// nodes all along a pool drain: Ready pods per app (the lowest seen), when
// each pool node was cordoned and when the first eviction came (as
// resourceVersions: etcd revisions, one order for every write), pods
// landing on pool nodes, and per node the span of its evictions.
type poolWatcher struct {
	t      *testing.T
	inPool map[string]bool
	mu     sync.Mutex
	ready  map[string]map[string]bool // app -> pod -> Ready and not terminating
	lowest map[string]int
	// cordonRV is the revision at which each pool node turned
	// unschedulable; firstEvictionRV the first pod write setting a
	// deletionTimestamp.
	cordonRV        map[string]int64
	firstEvictionRV int64
	evicted         map[string]bool   // pods seen terminating or deleted
	initial         map[string]string // pods on pool nodes at the start -> node
	landed          []string          // pods not initial seen bound to a pool node
	// span is per pool node the time of its first pod terminating and of
	// its last pod deleted.
	first, last map[string]time.Time
	evictions   int
	stop        func()
	done        sync.WaitGroup
}

// watchPool starts watching; call Stop once the drain ended.
func (p *poolFixture) watchPool(t *testing.T) *poolWatcher {
	t.Helper()
	w := &poolWatcher{t: t, inPool: map[string]bool{}, ready: map[string]map[string]bool{}, lowest: map[string]int{},
		cordonRV: map[string]int64{}, evicted: map[string]bool{}, initial: map[string]string{},
		first: map[string]time.Time{}, last: map[string]time.Time{}}
	for _, n := range p.pool {
		w.inPool[n] = true
	}
	ctx, cancel := context.WithCancel(context.Background())
	w.stop = cancel
	pods, err := p.env.Client.CoreV1().Pods(p.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range pods.Items {
		pod := &pods.Items[i]
		if w.inPool[pod.Spec.NodeName] {
			w.initial[pod.Name] = pod.Spec.NodeName
		}
		w.pod(pod, false)
	}
	for app, pods := range w.ready {
		w.lowest[app] = count(pods)
	}
	nodes, err := p.env.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: p.selector})
	if err != nil {
		t.Fatal(err)
	}
	podWatch, err := p.env.Client.CoreV1().Pods(p.ns).Watch(ctx, metav1.ListOptions{ResourceVersion: pods.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	nodeWatch, err := p.env.Client.CoreV1().Nodes().Watch(ctx, metav1.ListOptions{LabelSelector: p.selector, ResourceVersion: nodes.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	w.done.Add(2)
	go w.follow(podWatch, func(ev watch.Event) {
		if pod, ok := ev.Object.(*corev1.Pod); ok {
			w.pod(pod, ev.Type == watch.Deleted)
		}
	})
	go w.follow(nodeWatch, func(ev watch.Event) {
		if n, ok := ev.Object.(*corev1.Node); ok && n.Spec.Unschedulable {
			w.mu.Lock()
			if _, seen := w.cordonRV[n.Name]; !seen {
				w.cordonRV[n.Name] = rv(n.ResourceVersion)
			}
			w.mu.Unlock()
		}
	})
	return w
}

func (w *poolWatcher) follow(wi watch.Interface, fn func(watch.Event)) {
	defer w.done.Done()
	defer wi.Stop()
	for ev := range wi.ResultChan() {
		fn(ev)
	}
}

// pod records one pod's state.
func (w *poolWatcher) pod(pod *corev1.Pod, deleted bool) {
	app := pod.Labels["app"]
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ready[app] == nil {
		w.ready[app] = map[string]bool{}
	}
	w.ready[app][pod.Name] = !deleted && pod.DeletionTimestamp == nil && isReady(pod)
	if low, ok := w.lowest[app]; ok {
		w.lowest[app] = min(low, count(w.ready[app]))
	}
	node := pod.Spec.NodeName
	if _, initial := w.initial[pod.Name]; w.inPool[node] && !initial && !deleted && pod.DeletionTimestamp == nil {
		w.landed = append(w.landed, pod.Name+" on "+node)
	}
	if (pod.DeletionTimestamp != nil || deleted) && w.inPool[node] {
		if !w.evicted[pod.Name] {
			w.evicted[pod.Name] = true
			w.evictions++
			if w.firstEvictionRV == 0 {
				w.firstEvictionRV = rv(pod.ResourceVersion)
			}
			if _, ok := w.first[node]; !ok {
				w.first[node] = time.Now()
			}
		}
		if deleted {
			w.last[node] = time.Now()
		}
	}
}

func count(pods map[string]bool) int {
	n := 0
	for _, r := range pods {
		if r {
			n++
		}
	}
	return n
}

func rv(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// Stop ends the watches.
func (w *poolWatcher) Stop() {
	w.stop()
	w.done.Wait()
}

// checkBudgets fails the test when an app's Ready pods went below its
// PDB's desiredHealthy.
func (w *poolWatcher) checkBudgets(desired map[string]int32) {
	w.t.Helper()
	for app, want := range desired {
		if low := w.lowest[app]; low < int(want) {
			w.t.Errorf("app %s: Ready pods dropped to %d, its PDB's desiredHealthy is %d", app, low, want)
		}
	}
}

// checkCordonedFirst fails the test unless every pool node was cordoned
// before the first eviction.
func (w *poolWatcher) checkCordonedFirst(pool []string) {
	w.t.Helper()
	if w.firstEvictionRV == 0 {
		w.t.Fatal("no eviction seen")
	}
	for _, n := range pool {
		at, ok := w.cordonRV[n]
		if !ok || at > w.firstEvictionRV {
			w.t.Errorf("node %s cordoned at revision %d (seen: %v), after the first eviction at %d", n, at, ok, w.firstEvictionRV)
		}
	}
}

// overlapped reports whether two pool nodes had evictions under way at the
// same time: one node's first pod went terminating before another's last
// pod was deleted.
func (w *poolWatcher) overlapped() bool {
	for a, af := range w.first {
		for b, bf := range w.first {
			if a != b && !af.Before(bf) && af.Before(w.last[b]) {
				return true
			}
		}
	}
	return false
}

// poolReport is the part of the pool's -o json document the tests read.
type poolReport struct {
	Outcome string `json:"outcome"`
	Nodes   []struct {
		Node          string    `json:"node"`
		Outcome       string    `json:"outcome"`
		Result        string    `json:"result"`
		Evicted       int       `json:"evicted"`
		Left          int       `json:"left"`
		StaysCordoned *bool     `json:"staysCordoned"`
		CordonedByUs  bool      `json:"cordonedByUs"`
		Uncordoned    bool      `json:"uncordoned"`
		Pods          []poolPod `json:"pods"`
	} `json:"nodes"`
	InitialPods     int      `json:"initialPods"`
	Evictions       int      `json:"evictions"`
	EvictionsPerPod float64  `json:"evictionsPerPod"`
	EvictedAgain    []string `json:"evictedAgain"`
}

// poolPod is one pod of a node in the pool's report.
type poolPod struct {
	Name     string `json:"name"`
	State    string `json:"state"`
	Attempts int    `json:"attempts"`
	GoneBy   string `json:"goneBy"`
}

func parsePoolReport(t *testing.T, stdout string) poolReport {
	t.Helper()
	var r poolReport
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("-o json output is not JSON: %v\n%s", err, stdout)
	}
	return r
}

// runUntil runs the plugin binary with args, sends SIGINT once when stop
// returns true (polled every 100 ms) and returns its stdout, stderr and
// exit status.
func runUntil(t *testing.T, f *fixture, args []string, stop func() bool) (string, string, int) {
	t.Helper()
	cmd := exec.Command(e2e.Binary(t), args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+f.env.Kubeconfig)
	var out, errOut syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(3 * time.Minute)
wait:
	for signalled := false; ; {
		select {
		case err = <-done:
			break wait
		case <-tick.C:
			if !signalled && stop != nil && stop() {
				signalled = true
				_ = cmd.Process.Signal(os.Interrupt)
			}
		case <-deadline:
			_ = cmd.Process.Kill()
			t.Fatalf("the drain did not end within 3 min; output:\n%s", out.String())
		}
	}
	t.Logf("stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	}
	return out.String(), errOut.String(), code
}

// evictionsSeen returns how many pool pods the watcher saw go.
func (w *poolWatcher) evictionsSeen() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.evictions
}
