package drain_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/internal/localcluster/sim"
)

func intOrStr(i int) *intstr.IntOrString { return ptr.To(intstr.FromInt32(int32(i))) }

// readyWatcher follows the pods of a namespace and remembers the lowest
// number of Ready, not terminating pods it saw.
type readyWatcher struct {
	mu     sync.Mutex
	ready  map[string]bool
	lowest int
	stop   func()
	done   chan struct{}
}

func watchReady(t *testing.T, f *fixture, selector string) *readyWatcher {
	t.Helper()
	list, err := f.env.Client.CoreV1().Pods(f.ns).List(f.ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		t.Fatal(err)
	}
	w := &readyWatcher{ready: map[string]bool{}, done: make(chan struct{})}
	for i := range list.Items {
		p := &list.Items[i]
		w.ready[p.Name] = p.DeletionTimestamp == nil && isReady(p)
	}
	w.lowest = w.count()
	ctx, cancel := context.WithCancel(f.ctx)
	w.stop = cancel
	wi, err := f.env.Client.CoreV1().Pods(f.ns).Watch(ctx, metav1.ListOptions{LabelSelector: selector, ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(w.done)
		defer wi.Stop()
		for ev := range wi.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			w.mu.Lock()
			w.ready[p.Name] = ev.Type != watch.Deleted && p.DeletionTimestamp == nil && isReady(p)
			w.lowest = min(w.lowest, w.count())
			w.mu.Unlock()
		}
	}()
	return w
}

func (w *readyWatcher) count() int {
	n := 0
	for _, r := range w.ready {
		if r {
			n++
		}
	}
	return n
}

func (w *readyWatcher) Lowest() int {
	w.stop()
	<-w.done
	return w.lowest
}

// (1) A 3-replica Deployment with minAvailable 2, all on the node, room on
// another: the drain succeeds and Ready pods never drop below 2.
func TestDrainRespectsMinAvailable(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, b := f.onOneOfTwo("web", "web", 3)
	f.pdb("web", "web", intOrStr(2), nil, nil, 3)
	if n := len(f.pods("app=web", onNode(a))); n != 3 {
		t.Fatalf("%d pods on %s, want 3", n, a)
	}

	w := watchReady(t, f, "app=web")
	res := f.drain(a, "--timeout", "90s")
	lowest := w.Lowest()

	expect(t, res, 0, "Verdict: would succeed", "one after another", "node "+a+" drained: 3 pod(s) evicted")
	if lowest < 2 {
		t.Errorf("Ready pods dropped to %d during the drain, the PDB says at least 2", lowest)
	}
	if !f.unschedulable(a) {
		t.Errorf("node %s is schedulable after the drain, want it cordoned", a)
	}
	f.waitPods("app=web", 3, func(p *corev1.Pod) bool { return p.Spec.NodeName == b && isReady(p) })
}

// (2) maxUnavailable 0: the preflight names it, --dry-run exits 2, and a
// drain with --timeout 20s exits 2 naming the PDB.
func TestDrainMaxUnavailableZero(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, _ := f.onOneOfTwo("web", "web", 2)
	f.pdb("frozen", "web", nil, intOrStr(0), nil, 2)

	dry := f.drain(a, "--dry-run")
	expect(t, dry, 2, "[pdb-allows-none] PDB "+f.ns+"/frozen allows no disruption by its spec (maxUnavailable: 0)",
		"Verdict: would block: pdb-allows-none (PDB "+f.ns+"/frozen)")
	if f.unschedulable(a) {
		t.Fatalf("--dry-run cordoned %s", a)
	}

	start := time.Now()
	res := f.drain(a, "--timeout", "20s")
	expect(t, res, 2, "The disruption budget frozen needs 2 healthy pods and has 2 currently",
		"NOT drained: --timeout reached", "stays cordoned")
	if d := time.Since(start); d > 40*time.Second {
		t.Errorf("--timeout 20s drain took %s", d)
	}
	if n := len(f.pods("app=web", onNode(a))); n != 2 {
		t.Errorf("%d pods left on %s, want both", n, a)
	}
}

// (3) Two pods of one PDB on the node with one disruption allowed: the
// preflight says they go one after another, and the drain succeeds.
func TestDrainTwoPodsOfOnePDBGoOneAfterAnother(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, b := f.onOneOfTwo("web", "web", 2)
	f.deploy("web-extra", "web", 1, map[string]string{hostLabel: b}, nil)
	f.pdb("web", "web", intOrStr(2), nil, nil, 3)

	dry := f.drain(a, "--dry-run")
	expect(t, dry, 0, "one after another", "Verdict: would succeed: 2 pod(s)")

	w := watchReady(t, f, "app=web")
	res := f.drain(a, "--timeout", "90s", "-o", "json")
	if lowest := w.Lowest(); lowest < 2 {
		t.Errorf("Ready pods of the PDB dropped to %d, minAvailable is 2", lowest)
	}
	if res.ExitCode != 0 {
		t.Fatalf("exit %d, want 0", res.ExitCode)
	}
	r := parseReport(t, res.Stdout)
	if len(r.Nodes) != 1 || r.Nodes[0].Outcome != "drained" || len(r.Nodes[0].Pods) != 2 {
		t.Fatalf("report = %+v, want node drained with 2 pods", r)
	}
	for _, p := range r.Nodes[0].Pods {
		if p.State != "gone" {
			t.Errorf("pod %s %s, want gone", p.Name, p.State)
		}
	}
}

// (4) A pod under two PDBs: a preflight blocker, and the eviction's 500.
func TestDrainPodUnderTwoPDBs(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, _ := f.onOneOfTwo("web", "web", 2)
	f.pdb("one", "web", intOrStr(1), nil, nil, 2)
	f.pdb("two", "web", intOrStr(1), nil, nil, 2)

	expect(t, f.drain(a, "--dry-run"), 2, "[multiple-pdbs]", "Verdict: would block: multiple-pdbs")
	expect(t, f.drain(a, "--timeout", "30s"), 2, "more than one PodDisruptionBudget", "NOT drained: evictions were refused")
}

// (5) An unready pod: refused under IfHealthyBudget while the budget is not
// met, evicted under AlwaysAllow.
func TestDrainUnreadyPod(t *testing.T) {
	t.Parallel()
	for _, policy := range []policyv1.UnhealthyPodEvictionPolicyType{policyv1.IfHealthyBudget, policyv1.AlwaysAllow} {
		t.Run(string(policy), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			a, b := f.env.Node(t), f.env.Node(t)
			f.deploy("web", "web", 2, map[string]string{hostLabel: b}, nil)
			f.deploy("sick", "web", 1, map[string]string{hostLabel: a}, map[string]string{sim.Ready: "false"})
			// minAvailable 3 of 3 pods, 2 Ready: the budget is not met.
			f.pdb("web", "web", intOrStr(3), nil, ptr.To(policy), 3)

			dry := f.drain(a, "--dry-run")
			res := f.drain(a, "--timeout", "10s")
			if policy == policyv1.IfHealthyBudget {
				expect(t, dry, 2, "[unready-pod-if-healthy-budget]")
				expect(t, res, 2, "The disruption budget web needs 3 healthy pods and has 2 currently", "NOT drained")
				return
			}
			expect(t, dry, 0, "Verdict: would succeed")
			expect(t, res, 0, "drained: 1 pod(s) evicted")
		})
	}
}

// (6) An unmanaged pod, an emptyDir pod and a DaemonSet pod: refused without
// --force, --delete-emptydir-data, --ignore-daemonsets, drained with them.
func TestDrainPodsNeedingFlags(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.env.Node(t)
	pin := map[string]string{hostLabel: a}
	bare := podTemplate(map[string]string{"app": "bare"}, pin, nil)
	f.create("bare pod", func() error {
		_, err := f.env.Client.CoreV1().Pods(f.ns).Create(f.ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "bare", Labels: bare.Labels, Annotations: bare.Annotations},
			Spec:       bare.Spec}, metav1.CreateOptions{})
		return err
	})
	f.deployScratch(pin)
	f.daemonSet(pin)
	f.waitPods("app in (bare,scratch,agent)", 3, func(p *corev1.Pod) bool { return isReady(p) && p.Spec.NodeName == a })

	expect(t, f.drain(a, "--dry-run"), 2, "[needs-force]", "[needs-delete-emptydir-data]", "[needs-ignore-daemonsets]")
	expect(t, f.drain(a), 2, "not draining node "+a)
	if f.unschedulable(a) {
		t.Errorf("a refused drain cordoned %s", a)
	}
	expect(t, f.drain(a, "--force", "--delete-emptydir-data", "--ignore-daemonsets", "--timeout", "60s"), 0,
		"drained: 2 pod(s) evicted")
	if left := f.pods("app in (bare,scratch)", onNode(a)); len(left) != 0 {
		t.Errorf("pods left on %s: %d, want bare and scratch gone", a, len(left))
	}
	if len(f.pods("app=agent", onNode(a))) != 1 {
		t.Errorf("the DaemonSet pod was removed; --ignore-daemonsets leaves it")
	}
}

// (7) SIGINT mid-drain: the drain says at once on stderr what it waits for,
// the summary is printed, the node stays cordoned and the exit status is 2;
// with --uncordon-on-failure the node is uncordoned.
func TestDrainInterrupted(t *testing.T) {
	t.Parallel()
	eachUncordonMode(t, func(t *testing.T, uncordon bool) {
		f := newFixture(t)
		a := f.env.Node(t)
		// Three pods, minAvailable 2, no room elsewhere: one goes, two wait.
		f.deploy("web", "web", 3, f.pool(a), nil)
		f.pdb("web", "web", intOrStr(2), nil, nil, 3)

		args := []string{"drain", "node", a}
		if uncordon {
			args = append(args, "--uncordon-on-failure")
		}
		// Interrupt once the first pod is gone (a plain progress line
		// ends in "gone") and the other two wait on the PDB.
		stdout, code := interruptWhen(t, f, args, "gone\n")
		for _, w := range []string{"NOT drained: interrupted", "evicted: 1, still on the node: 2",
			"The disruption budget web needs 2 healthy pods and has",
			"stopping: waiting for", "Ctrl-C again to exit without the summary"} {
			if !strings.Contains(stdout, w) {
				t.Errorf("output lacks %q", w)
			}
		}
		if code != 2 {
			t.Errorf("exit status %d, want 2", code)
		}
		if uncordon {
			if f.unschedulable(a) || !strings.Contains(stdout, "uncordoned again") {
				t.Errorf("--uncordon-on-failure: node %s unschedulable=%v", a, f.unschedulable(a))
			}
		} else if !f.unschedulable(a) || !strings.Contains(stdout, "stays cordoned") {
			t.Errorf("node %s schedulable after an interrupted drain, want it cordoned", a)
		}
	})
}

// A second Ctrl-C right after the first exits at once (status 130), and
// says which node it leaves cordoned, the node being cordoned indeed.
func TestDrainInterruptedTwice(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.env.Node(t)
	f.deploy("web", "web", 3, f.pool(a), nil)
	f.pdb("web", "web", intOrStr(2), nil, nil, 3)
	out, code := signalWhen(t, f, []string{"drain", "node", a}, "gone\n", 2)
	if code != ExitInterruptedTwice {
		t.Errorf("exit status %d, want %d", code, ExitInterruptedTwice)
	}
	for _, w := range []string{"interrupted again: exiting at once", "left cordoned: " + a + " (kubectl graceful uncordon " + a} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q", w)
		}
	}
	if !f.unschedulable(a) {
		t.Errorf("node %s is schedulable, yet the drain said it left it cordoned", a)
	}
}

// ExitInterruptedTwice is the plugin's exit status after a second SIGINT.
const ExitInterruptedTwice = 130

// interruptWhen runs the plugin binary, sends SIGINT once its output holds
// marker, and returns its output and exit status.
func interruptWhen(t *testing.T, f *fixture, args []string, marker string) (string, int) {
	t.Helper()
	return signalWhen(t, f, args, marker, 1)
}

// signalWhen is interruptWhen sending SIGINT times times in a row.
func signalWhen(t *testing.T, f *fixture, args []string, marker string, times int) (string, int) {
	t.Helper()
	cmd := exec.Command(e2e.Binary(t), args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+f.env.Kubeconfig)
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	e2e.WaitFor(t, time.Minute, "the drain to show "+marker, func() bool { return strings.Contains(out.String(), marker) })
	for i := range times {
		if i > 0 {
			// Two signals sent at once may reach the process as one (a
			// pending SIGINT is not queued twice): send the next as soon
			// as the first was handled, while the drain still stops.
			for deadline := time.Now().Add(5 * time.Second); !strings.Contains(out.String(), "stopping:") && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
		}
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("the drain did not stop within 30 s of SIGINT; output:\n%s", out.String())
	}
	t.Logf("output:\n%s", out.String())
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return out.String(), exit.ExitCode()
	}
	return out.String(), 0
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// (8) A node cordoned before the drain is never uncordoned by it, even with
// --uncordon-on-failure.
func TestDrainLeavesPreviouslyCordonedNodeCordoned(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.env.Node(t)
	f.deploy("web", "web", 2, f.pool(a), nil)
	f.pdb("frozen", "web", nil, intOrStr(0), nil, 2)
	f.cordon(a, true)

	res := f.drain(a, "--timeout", "3s", "--uncordon-on-failure")
	expect(t, res, 2, "Preflight for node "+a+" (already cordoned)", "it was cordoned before this drain")
	if !f.unschedulable(a) {
		t.Errorf("node %s was uncordoned, but someone else had cordoned it", a)
	}
}

// (9) Pods annotated not to be disrupted: reported, not evicted, unless
// --evict-do-not-disrupt.
func TestDrainDoNotDisruptAnnotations(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, b := f.env.Node(t), f.env.Node(t)
	sel := f.pool(a, b)
	f.cordon(b, true)
	f.deploy("batch", "batch", 1, sel, map[string]string{"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"})
	f.deploy("cache", "cache", 1, sel, map[string]string{"karpenter.sh/do-not-disrupt": "true"})
	f.cordon(b, false)

	dry := f.drain(a, "--dry-run")
	expect(t, dry, 2, `cluster-autoscaler.kubernetes.io/safe-to-evict="false"`, `karpenter.sh/do-not-disrupt="true"`,
		"Verdict: would not start: do-not-disrupt")
	expect(t, f.drain(a), 2, "not draining node "+a)
	if f.unschedulable(a) || len(f.pods("app in (batch,cache)", onNode(a))) != 2 {
		t.Fatalf("a refused drain changed something")
	}
	res := f.drain(a, "--evict-do-not-disrupt", "--timeout", "60s", "-o", "json")
	if res.ExitCode != 0 {
		t.Fatalf("--evict-do-not-disrupt: exit %d", res.ExitCode)
	}
	r := parseReport(t, res.Stdout)
	if r.Nodes[0].Outcome != "drained" || !r.Nodes[0].CordonedByUs || len(r.Nodes[0].Pods) != 2 {
		t.Errorf("report = %+v", r.Nodes[0])
	}
}

// Errors exit 1 with one line: a node that does not exist, a user RBAC
// does not allow to read nodes, a selector matching no node,
// --max-concurrent-nodes below 1, a negative --timeout.
func TestDrainErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, b := f.env.Node(t), f.env.Node(t)
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"unknown node": {[]string{"no-such-node-" + f.ns}, `error: node "no-such-node-`},
		"forbidden":    {[]string{a, "--as", "system:serviceaccount:" + f.ns + ":nobody"}, "forbidden"},
		"no match":     {[]string{"-l", "drain.graceful.test/none=" + f.ns}, "no node matches -l"},
		"0 at a time":  {[]string{a, b, "--max-concurrent-nodes", "0"}, "--max-concurrent-nodes must be at least 1"},
		// kubectl's "zero means infinite" gives a negative value no
		// meaning: it drained without a limit before.
		"negative timeout": {[]string{a, "--timeout=-1s"}, "--timeout must not be negative"},
	} {
		res := f.drain(c.args...)
		if res.ExitCode != 1 || !strings.Contains(res.Stderr, c.want) || strings.Count(strings.TrimSpace(res.Stderr), "\n") != 0 {
			t.Errorf("%s: exit %d stderr %q, want exit 1 and one error line with %q", name, res.ExitCode, res.Stderr, c.want)
		}
	}
	if f.unschedulable(a) {
		t.Errorf("a forbidden drain cordoned %s", a)
	}
}

// -l selects several nodes; they are drained as a pool (-o json: the pool document, with a result per node).
func TestDrainSeveralNodesBySelector(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, b, spare := f.env.Node(t), f.env.Node(t), f.env.Node(t)
	sel := f.pool(a, b, spare)
	f.placeOn([]string{spare}, func() { f.deploy("web", "web", 2, sel, nil) })
	selector := oldPoolLabel + "=o-" + rand.String(6)
	f.label(oldPoolLabel, strings.TrimPrefix(selector, oldPoolLabel+"="), a, b)
	res := f.drain("-l", selector, "--timeout", "60s", "-o", "json")
	r := parseReport(t, res.Stdout)
	if res.ExitCode != 0 || len(r.Nodes) != 2 {
		t.Fatalf("exit %d, %d nodes in the report; want 0 and both nodes", res.ExitCode, len(r.Nodes))
	}
	for _, n := range r.Nodes {
		if n.Outcome != "drained" || !f.unschedulable(n.Node) {
			t.Errorf("node %s: outcome %s, unschedulable %v", n.Node, n.Outcome, f.unschedulable(n.Node))
		}
	}
}
