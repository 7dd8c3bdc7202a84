package drain_test

import (
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/internal/localcluster/sim"
)

// A --timeout that ends each node's turn before its pods are even listed
// (1ms): every node of the pool is summarised as timed out with its pods
// still there, as the cluster has them, never as a node with nothing left;
// --uncordon-on-failure undoes our cordons; exit 2.
func TestDrainPoolTimeoutBeforeTheFirstList(t *testing.T) {
	t.Parallel()
	p := newPoolFixture(t, 2, 1)
	p.deployOnPool(2, 3)
	stdout, _, code := runUntil(t, p.fixture, append(p.poolDrainArgs("--uncordon-on-failure"), "--timeout", "1ms"), nil)
	if code != 2 {
		t.Errorf("exit status %d, want 2", code)
	}
	r := parsePoolReport(t, stdout)
	if r.Outcome != "not-drained" || len(r.Nodes) != 2 || r.Evictions != 0 {
		t.Fatalf("pool outcome %q, %d nodes, %d evictions; want not drained, 2, 0", r.Outcome, len(r.Nodes), r.Evictions)
	}
	left := 0
	for _, n := range r.Nodes {
		checkNodeTruth(t, p, n.Node, n.Result, n.Left, n.StaysCordoned, n.Pods)
		if n.Outcome != "timed-out" || n.Result != "untouched" || !n.Uncordoned {
			t.Errorf("node %s: %s (%s), uncordoned %v; want untouched (timed-out), uncordoned", n.Node, n.Result, n.Outcome, n.Uncordoned)
		}
		left += n.Left
	}
	if left != 6 {
		t.Errorf("the report leaves %d pod(s) on the pool, want the 6 still there", left)
	}
}

// One node and a --timeout of 1 ms: when it ends before the pods are
// listed, one line says so and that nothing changed, and the node is not
// cordoned; either way exit 2, never a raw context error.
func TestDrainNodeTimeoutBeforeTheCordon(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	node := f.env.Node(t)
	res := f.drain(node, "--timeout", "1ms")
	if strings.Contains(res.Stdout+res.Stderr, "deadline exceeded") {
		t.Errorf("a raw context error")
	}
	// 1 ms usually ends before the cordon; when the node's list and the
	// cordon beat it, the summary must say so: not drained, stays cordoned.
	if f.unschedulable(node) {
		expect(t, res, 2, "node "+node+" NOT drained: --timeout reached", "node "+node+" stays cordoned")
		return
	}
	expect(t, res, 2, "not draining node "+node+": --timeout reached before the cordon; nothing was changed")
}

// Ctrl-C while the nodes are looked up (the API server unreachable, the
// lookup riding it out) is an interruption: one line on stderr saying
// nothing was changed, exit 2, never a raw "context canceled" and exit 1.
func TestDrainInterruptedWhileLookingUpNodes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, b := f.env.Node(t), f.env.Node(t)
	proxy, kc := e2e.ProxyTo(t, f.env.Kubeconfig)
	proxy.Cut(time.Minute)
	cmd := exec.Command(e2e.Binary(t), "drain", "node", a, b)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kc)
	var out, errOut syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Signal once the binary is looking the nodes up (its first connection
	// to the API server): main listens for SIGINT by then. A signal sent
	// earlier is lost when the test runs in a background job (a
	// non-interactive shell's `&` starts it with SIGINT ignored, which the
	// binary inherits until it installs its handler); the drain then rode
	// out the cut and cordoned the nodes, exit 0.
	for deadline := time.Now().Add(30 * time.Second); proxy.Accepted() == 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if proxy.Accepted() == 0 {
		_ = cmd.Process.Kill()
		t.Fatal("the binary did not try the API server within 30 s")
	}
	time.Sleep(time.Second) // inside the lookup, riding out the cut
	_ = cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	t.Logf("stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	}
	if code != 2 || !strings.Contains(errOut.String(), "error: interrupted while looking up the nodes; nothing was changed") ||
		strings.Contains(errOut.String(), "context canceled") {
		t.Errorf("exit status %d, stderr %q; want 2 and the interruption in one line", code, errOut.String())
	}
	if f.unschedulable(a) || f.unschedulable(b) {
		t.Errorf("a node was cordoned")
	}
}

// The permission to evict in one namespace withdrawn once the pool is
// cordoned (the preflight found it granted): the evictions there answer
// 403, which is the cluster failing the drain, as on one node: the node
// holding them ends in error with its pods left, the pool's outcome is
// error and the exit status 1, never "blocked" and 2.
func TestDrainPoolEvictionForbiddenMidway(t *testing.T) {
	t.Parallel()
	p := newPoolFixture(t, 2, 1)
	sorted := append([]string{}, p.pool...)
	sort.Strings(sorted)
	first, last := sorted[0], sorted[1]
	other := *p.fixture
	other.ns = p.env.Namespace(t)
	all := append(append([]string{}, p.pool...), p.spare...)
	// A slow pod on the node drained first, the locked one on the last,
	// both free to move to the spare node.
	placeOn := func(f *fixture, node, name string, annotations map[string]string) {
		for _, n := range all {
			p.cordon(n, n != node)
		}
		f.deploy(name, name, 1, p.group, annotations)
		for _, n := range all {
			p.cordon(n, false)
		}
	}
	placeOn(p.fixture, first, "slow", map[string]string{sim.ExitAfter: "4s"})
	placeOn(&other, last, "locked", nil)
	as := p.leastPrivilege()
	rbac := p.env.Client.RbacV1()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "evict-" + other.ns}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"pods/eviction"}, Verbs: []string{"create"}}}}
	p.create(role, func() error { _, err := rbac.ClusterRoles().Create(p.ctx, role, metav1.CreateOptions{}); return err })
	t.Cleanup(func() { _ = rbac.ClusterRoles().Delete(p.ctx, role.Name, metav1.DeleteOptions{}) })
	for _, ns := range []string{p.ns, other.ns} {
		binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "evict"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
			Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "drainer", Namespace: p.ns}}}
		p.create(binding, func() error {
			_, err := rbac.RoleBindings(ns).Create(p.ctx, binding, metav1.CreateOptions{})
			return err
		})
	}
	withdrawn := false
	stdout, _, code := runUntil(t, p.fixture, p.poolDrainArgs("--as", as), func() bool {
		if !withdrawn && p.unschedulable(first) && p.unschedulable(last) {
			withdrawn = true
			if err := rbac.RoleBindings(other.ns).Delete(p.ctx, "evict", metav1.DeleteOptions{}); err != nil {
				t.Errorf("delete the binding: %v", err)
			}
		}
		return false
	})
	if code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	r := parsePoolReport(t, stdout)
	if r.Outcome != "error" {
		t.Errorf("pool outcome %q, want error", r.Outcome)
	}
	for _, n := range r.Nodes {
		if n.Node == first {
			checkNodeTruth(t, p, n.Node, n.Result, n.Left, n.StaysCordoned, n.Pods)
		}
		if n.Node == last && (n.Outcome != "error" || n.Left != 1 || n.Result == "drained") {
			t.Errorf("node %s: %s (%s), %d left; want the locked pod left and an error", n.Node, n.Result, n.Outcome, n.Left)
		}
	}
	if locked := other.pods("app=locked", onNode(last)); len(locked) != 1 || locked[0].DeletionTimestamp != nil {
		t.Errorf("the locked pod is not still running on %s: %d pod(s)", last, len(locked))
	}
}
