package drain_test

import (
	"fmt"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A pool in text: --dry-run prints the pool's preflight and changes
// nothing (exit 0); the drain with --max-concurrent-nodes 2 says every
// node was cordoned first, prefixes progress lines with the node, and ends
// with the pool summary (exit 0).
func TestDrainPoolText(t *testing.T) {
	t.Parallel()
	p := newPoolFixture(t, 3, 1)
	p.deployOnPool(3, 3)

	dry := p.drain("-l", p.selector, "--dry-run")
	expect(t, dry, 0, "Preflight for node "+p.pool[0], "Pool preflight: 3 node(s), 9 pod(s) to evict", "Pool verdict: would succeed")
	for _, n := range p.pool {
		if p.unschedulable(n) {
			t.Errorf("--dry-run cordoned %s", n)
		}
	}

	res := p.drain("-l", p.selector, "--max-concurrent-nodes", "2", "--timeout", "120s")
	expect(t, res, 0, "cordoned 3 node(s) before the first eviction: ", p.pool[0]+": ",
		"Pool summary: 3 node(s), 3 drained, 0 partly drained, 0 untouched, 0 gone",
		"evictions per pod: 1.00 (9 evictions accepted, 9 pod(s) to evict at the start)",
		"pods evicted more than once: 0")
	if strings.Index(res.Stdout, "cordoned 3 node(s)") > strings.Index(res.Stdout, "evicting") {
		t.Errorf("evictions reported before the pool was cordoned")
	}
}

// An identity that may evict in one namespace of the pool but not in the
// other (held by one node): the pool's preflight finds it, the pool drain
// refuses to start with one line saying nothing was changed (exit 2), and
// no node is cordoned.
func TestDrainPoolForbiddenOnOneNode(t *testing.T) {
	t.Parallel()
	p := newPoolFixture(t, 2, 1)
	p.deployOnPool(1, 3)
	other := *p.fixture
	other.ns = p.env.Namespace(t)
	p.placeOn(p.others(p.pool[1]), func() { other.deploy("locked", "locked", 1, p.group, nil) })
	as := p.leastPrivilege()
	rbac := p.env.Client.RbacV1()
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "evict"}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"pods/eviction"}, Verbs: []string{"create"}}}}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "evict"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "evict"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "drainer", Namespace: p.ns}}}
	p.create(role, func() error { _, err := rbac.Roles(p.ns).Create(p.ctx, role, metav1.CreateOptions{}); return err })
	p.create(binding, func() error {
		_, err := rbac.RoleBindings(p.ns).Create(p.ctx, binding, metav1.CreateOptions{})
		return err
	})

	res := p.drain("-l", p.selector, "--as", as, "--timeout", "30s")
	expect(t, res, 2, "[forbidden] you may not create pods/eviction in namespace "+other.ns,
		"Pool verdict: would not start", "not draining the pool: the blockers above need a flag or a change; nothing was changed")
	if strings.Contains(res.Stdout, "Pool summary") || strings.Contains(res.Stdout, "before the first eviction") {
		t.Errorf("a refused pool has a summary or a cordon")
	}
	for _, n := range p.pool {
		if p.unschedulable(n) {
			t.Errorf("a refused pool drain cordoned %s", n)
		}
	}
	// -o json: each node's left is the pods still on it, not 0.
	res = p.drain("-l", p.selector, "--as", as, "--timeout", "30s", "-o", "json")
	for _, n := range parsePoolReport(t, res.Stdout).Nodes {
		on := 0
		for _, ns := range []string{p.ns, other.ns} {
			list, err := p.env.Client.CoreV1().Pods(ns).List(p.ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + n.Node})
			if err != nil {
				t.Fatal(err)
			}
			on += len(list.Items)
		}
		if n.Left != on || on == 0 {
			t.Errorf("refused pool, node %s: left %d, want the %d pod(s) on it", n.Node, n.Left, on)
		}
	}
}

// A node named twice is refused, as watch node refuses it, before anything
// is read or changed.
func TestDrainNodeNamedTwice(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.env.Node(t)
	twice := f.drain(a, a, "--timeout", "30s")
	if twice.ExitCode != 1 || strings.TrimSpace(twice.Stderr) != fmt.Sprintf("error: node %q is named twice", a) || twice.Stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and one line saying the node is named twice", twice.ExitCode, twice.Stdout, twice.Stderr)
	}
}
