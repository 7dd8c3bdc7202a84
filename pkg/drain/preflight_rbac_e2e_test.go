package drain_test

import (
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// identity creates a ServiceAccount named after the namespace and a
// ClusterRole of rules bound to it, and returns the --as value for it.
func (f *fixture) identity(suffix string, rules []rbacv1.PolicyRule) string {
	f.t.Helper()
	name := "drainer-" + f.ns + suffix
	rbac := f.env.Client.RbacV1()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "drainer" + suffix, Namespace: f.ns}}}
	f.create(role, func() error { _, err := rbac.ClusterRoles().Create(f.ctx, role, metav1.CreateOptions{}); return err })
	f.create(binding, func() error {
		_, err := rbac.ClusterRoleBindings().Create(f.ctx, binding, metav1.CreateOptions{})
		return err
	})
	f.t.Cleanup(func() {
		_ = rbac.ClusterRoleBindings().Delete(f.ctx, name, metav1.DeleteOptions{})
		_ = rbac.ClusterRoles().Delete(f.ctx, name, metav1.DeleteOptions{})
	})
	user := "system:serviceaccount:" + f.ns + ":drainer" + suffix
	f.waitAuthorized(user, rules[0])
	return user
}

// waitAuthorized waits until the API server's authorizer grants user the
// first verb on the first resource of rule: the RBAC authorizer reads
// roles and bindings from its own watch, so a binding just created may not
// be in force for the first request that follows it.
func (f *fixture) waitAuthorized(user string, rule rbacv1.PolicyRule) {
	f.t.Helper()
	resource := rule.Resources[0]
	if resource == "*" {
		resource = "pods"
	}
	attrs := &authorizationv1.ResourceAttributes{Group: rule.APIGroups[0], Resource: resource, Verb: rule.Verbs[0]}
	if resource != "nodes" {
		attrs.Namespace = f.ns
	}
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: user,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + f.ns, "system:authenticated"}, ResourceAttributes: attrs}}
	e2e.WaitFor(f.t, e2e.SetupWait, user+" authorized by its new binding", func() bool {
		r, err := f.env.Client.AuthorizationV1().SubjectAccessReviews().Create(f.ctx, sar, metav1.CreateOptions{})
		return err == nil && r.Status.Allowed
	})
}

// leastPrivilege creates a ServiceAccount that may read and patch nodes,
// read and watch pods and read PodDisruptionBudgets everywhere, but not
// create pods/eviction, and returns the --as value for it.
func (f *fixture) leastPrivilege() string {
	f.t.Helper()
	return f.identity("", []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"get", "list", "patch"}},
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{"policy"}, Resources: []string{"poddisruptionbudgets"}, Verbs: []string{"list"}},
	})
}

// An identity that may read everything the preflight reads and cordon the
// node, but not create pods/eviction: the preflight says so as a blocker,
// --dry-run exits 2, --dry-run=server shows the server's 403 per pod, and
// the drain refuses to start (exit 2: a risk found before any change; an
// identity that may not even read the node exits 1, TestDrainErrors) and
// leaves the node schedulable.
func TestDrainPreflightForbiddenEviction(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, _ := f.onOneOfTwo("web", "web", 2)
	as := f.leastPrivilege()
	want := "[forbidden] you may not create pods/eviction in namespace " + f.ns

	expect(t, f.drain(a, "--dry-run", "--as", as), 2, want, "Verdict: would not start: forbidden")
	server := f.drain(a, "--dry-run=server", "--as", as)
	expect(t, server, 2, want, "Server dry run (each eviction, or delete with --disable-eviction, sent with dryRun=All):", "[server-dry-run-refused]")
	if strings.Count(server.Stdout, "cannot create resource \"pods/eviction\"") < 2 || !strings.Contains(server.Stdout, "403") {
		t.Errorf("the server dry run does not show the 403 forbidden answers")
	}
	res := f.drain(a, "--as", as, "--timeout", "30s")
	expect(t, res, 2, want, "not draining node "+a)
	if f.unschedulable(a) {
		t.Errorf("a drain the preflight found forbidden cordoned %s", a)
	}
	if n := len(f.pods("app=web", onNode(a))); n != 2 {
		t.Errorf("%d pods left on %s, want both", n, a)
	}
}

// --dry-run=server sends each eviction with dryRun=All: a budget that
// allows nothing answers 429 per pod (exit 2); without it every eviction
// is accepted (exit 0) and nothing changed.
func TestDrainServerDryRun(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, _ := f.onOneOfTwo("web", "web", 2)

	ok := f.drain(a, "--dry-run=server")
	expect(t, ok, 0, "Server dry run (each eviction, or delete with --disable-eviction, sent with dryRun=All):", "accepted", "Verdict: would succeed")
	if f.unschedulable(a) || len(f.pods("app=web", onNode(a))) != 2 {
		t.Fatalf("--dry-run=server changed the cluster")
	}

	f.pdb("frozen", "web", nil, intOrStr(0), nil, 2)
	refused := f.drain(a, "--dry-run=server")
	expect(t, refused, 2, "budget-refused", "429", "[server-dry-run-refused]")
	if len(f.pods("app=web", onNode(a))) != 2 {
		t.Errorf("--dry-run=server evicted pods")
	}

	// --disable-eviction deletes, bypassing the budget: the dry-run
	// deletes are accepted and nothing is deleted.
	del := f.drain(a, "--dry-run=server", "--disable-eviction", "--yes-bypass-pdb")
	expect(t, del, 0, "accepted", "Verdict: would succeed")
	if strings.Contains(del.Stdout, "budget-refused") || len(f.pods("app=web", onNode(a))) != 2 || f.unschedulable(a) {
		t.Errorf("--dry-run=server --disable-eviction: refused by the budget, or changed the cluster")
	}
}

// An identity that may do all a drain does but watch PodDisruptionBudgets:
// the preflight warns that the drain cannot follow the budgets (not a
// blocker), and the drain goes on and empties the node through the
// Eviction API alone.
func TestDrainWithoutWatchingBudgets(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, _ := f.onOneOfTwo("web", "web", 2)
	f.pdb("web", "web", nil, intOrStr(1), nil, 2)
	read := []string{"get", "list", "watch"}
	as := f.identity("-nowatch", []rbacv1.PolicyRule{
		{APIGroups: []string{"", "apps", "batch"}, Resources: []string{"*"}, Verbs: read},
		{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"patch"}},
		{APIGroups: []string{""}, Resources: []string{"pods/eviction"}, Verbs: []string{"create"}},
		{APIGroups: []string{"policy"}, Resources: []string{"poddisruptionbudgets"}, Verbs: []string{"get", "list"}},
	})
	want := "[budget-watch-forbidden] you may not watch poddisruptionbudgets in namespace " + f.ns
	expect(t, f.drain(a, "--dry-run", "--as", as), 0, want, "Verdict: would succeed")
	res := f.drain(a, "--as", as, "--timeout", "90s")
	expect(t, res, 0, want)
	if n := len(f.pods("app=web", onNode(a))); n != 0 {
		t.Errorf("%d pods left on %s, want none", n, a)
	}
	if strings.Contains(res.Stderr, "forbidden") {
		t.Errorf("the refused watch leaked onto stderr:\n%s", res.Stderr)
	}
}

// An identity that may drain and read Deployments but not patch them:
// --surge could not restart the single-replica Deployment once the node is
// cordoned, and the drain would then evict its only Ready pod. The
// preflight refuses (exit 2), naming the Deployment, before any change.
func TestDrainSurgeForbiddenPatch(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, _ := f.onOneOfTwo("web", "web", 1)
	read := []string{"get", "list", "watch"}
	as := f.identity("-surge", []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"get", "list", "watch", "patch"}},
		{APIGroups: []string{""}, Resources: []string{"pods", "services", "events", "namespaces", "persistentvolumeclaims", "persistentvolumes"}, Verbs: read},
		{APIGroups: []string{""}, Resources: []string{"pods/eviction"}, Verbs: []string{"create"}},
		{APIGroups: []string{"apps"}, Resources: []string{"*"}, Verbs: read},
		{APIGroups: []string{"policy"}, Resources: []string{"poddisruptionbudgets"}, Verbs: read},
		{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: read},
		{APIGroups: []string{"storage.k8s.io", "scheduling.k8s.io", "node.k8s.io"}, Resources: []string{"*"}, Verbs: read},
	})
	want := "[forbidden] you may not patch deployments/web in namespace " + f.ns + ": --surge could not roll Deployment " + f.ns + "/web"
	res := f.drain(a, "--surge", "--as", as, "--timeout", "30s")
	expect(t, res, 2, want, "not draining node "+a)
	if f.unschedulable(a) {
		t.Errorf("a drain the preflight found forbidden cordoned %s", a)
	}
	if n := len(f.pods("app=web", onNode(a))); n != 1 {
		t.Errorf("%d web pods left on %s, want 1", n, a)
	}
	// Without --surge nothing is patched: the same identity may drain.
	expect(t, f.drain(a, "--dry-run=client", "--as", as), 0, "Verdict: would succeed")
}

// Identities that may read all the preflight reads but lack one request
// the drain itself sends later: watching pods (it learns from one watch
// of the node's pods that each is gone) or patching the node (the
// cordon). The preflight names the missing verb and resource as a
// refusing blocker, the drain exits 2 before the cordon, and the node and
// its pods are left as they were.
func TestDrainPreflightForbiddenLater(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, _ := f.onOneOfTwo("web", "web", 2)
	read := []string{"get", "list", "watch"}
	rules := func(nodeVerbs, podVerbs []string) []rbacv1.PolicyRule {
		return []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: nodeVerbs},
			{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: podVerbs},
			{APIGroups: []string{""}, Resources: []string{"services", "events", "namespaces", "persistentvolumeclaims", "persistentvolumes"}, Verbs: read},
			{APIGroups: []string{""}, Resources: []string{"pods/eviction"}, Verbs: []string{"create"}},
			{APIGroups: []string{"apps"}, Resources: []string{"*"}, Verbs: read},
			{APIGroups: []string{"policy"}, Resources: []string{"poddisruptionbudgets"}, Verbs: read},
			{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: read},
			{APIGroups: []string{"storage.k8s.io", "scheduling.k8s.io", "node.k8s.io"}, Resources: []string{"*"}, Verbs: read},
		}
	}
	for _, c := range []struct {
		suffix string
		rules  []rbacv1.PolicyRule
		want   string
	}{
		{"-nopodwatch", rules([]string{"get", "list", "watch", "patch"}, []string{"get", "list"}),
			"[forbidden] you may not watch pods in every namespace"},
		{"-nocordon", rules([]string{"get", "list", "watch"}, read),
			"[forbidden] you may not patch nodes/" + a},
	} {
		as := f.identity(c.suffix, c.rules)
		res := f.drain(a, "--as", as, "--timeout", "30s")
		expect(t, res, 2, c.want, "not draining node "+a)
		if f.unschedulable(a) {
			t.Errorf("%s: a drain the preflight found forbidden cordoned %s", c.suffix, a)
		}
		if n := len(f.pods("app=web", onNode(a))); n != 2 {
			t.Errorf("%s: %d pods left on %s, want both", c.suffix, n, a)
		}
	}
}

// An identity with namespaced Roles only: it may read, watch and evict the
// pods of the namespace and read its budgets and ReplicaSets, and read and
// patch nodes, but not list pods across namespaces as the preflight does
// (a field selector on spec.nodeName, as kubectl drain lists them). The
// preflight quotes the API server's refusal as a forbidden blocker, the
// drain exits 2 before the cordon, the node and its pods as they were.
func TestDrainPreflightNamespacedRolesOnly(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, _ := f.onOneOfTwo("web", "web", 2)
	as := f.identity("-namespaced", []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"get", "list", "patch"}}})
	rbac := f.env.Client.RbacV1()
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "drainer", Namespace: f.ns}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"pods/eviction"}, Verbs: []string{"create"}},
		{APIGroups: []string{"policy"}, Resources: []string{"poddisruptionbudgets"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{"apps"}, Resources: []string{"replicasets"}, Verbs: []string{"get", "list"}}}}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "drainer", Namespace: f.ns},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "drainer"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "drainer-namespaced", Namespace: f.ns}}}
	f.create(role, func() error { _, err := rbac.Roles(f.ns).Create(f.ctx, role, metav1.CreateOptions{}); return err })
	f.create(binding, func() error {
		_, err := rbac.RoleBindings(f.ns).Create(f.ctx, binding, metav1.CreateOptions{})
		return err
	})
	f.waitAuthorized(as, role.Rules[0])
	res := f.drain(a, "--as", as, "--timeout", "30s")
	expect(t, res, 2, "[forbidden] you may not read what the preflight reads", `cannot list resource "pods"`, "not draining node "+a)
	if f.unschedulable(a) {
		t.Errorf("a drain the preflight found forbidden cordoned %s", a)
	}
	if n := len(f.pods("app=web", onNode(a))); n != 2 {
		t.Errorf("%d pods left on %s, want both", n, a)
	}
}
