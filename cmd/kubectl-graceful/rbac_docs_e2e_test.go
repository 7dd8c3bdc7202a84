package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// documentedRoles reads the ClusterRoles of docs/rbac.md, by name, each
// decoded strictly.
func documentedRoles(t *testing.T) map[string]rbacv1.ClusterRole {
	t.Helper()
	root, err := e2e.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "rbac.md"))
	if err != nil {
		t.Fatal(err)
	}
	roles := map[string]rbacv1.ClusterRole{}
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(doc), -1) {
		var r rbacv1.ClusterRole
		if err := yaml.UnmarshalStrict([]byte(m[1]), &r); err != nil {
			t.Fatalf("docs/rbac.md: %v in\n%s", err, m[1])
		}
		roles[r.Name] = r
	}
	return roles
}

// boundTo makes a ServiceAccount in ns bound cluster-wide to a copy of
// role, and returns its --as name.
func boundTo(t *testing.T, env *e2e.Env, ns string, role rbacv1.ClusterRole) string {
	t.Helper()
	ctx := context.Background()
	name := strings.TrimPrefix(role.Name, "kubectl-graceful-")
	if _, err := env.Client.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cr := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + name}, Rules: role.Rules}
	if _, err := env.Client.RbacV1().ClusterRoles().Create(ctx, cr, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	b := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: cr.Name},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: cr.Name},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: name, Namespace: ns}}}
	if _, err := env.Client.RbacV1().ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.Client.RbacV1().ClusterRoleBindings().Delete(context.Background(), cr.Name, metav1.DeleteOptions{})
		_ = env.Client.RbacV1().ClusterRoles().Delete(context.Background(), cr.Name, metav1.DeleteOptions{})
	})
	return "system:serviceaccount:" + ns + ":" + name
}

// unrefused fails t when res is not one of the exit codes allowed, or
// when anything it printed says a request was forbidden.
func unrefused(t *testing.T, what string, res e2e.Result, codes ...int) {
	t.Helper()
	ok := false
	for _, c := range codes {
		ok = ok || res.ExitCode == c
	}
	if out := res.Stdout + res.Stderr; !ok || strings.Contains(out, "forbidden") {
		t.Errorf("%s: exit %d (want one of %v), or a request forbidden:\n%s\n%s", what, res.ExitCode, codes, res.Stdout, res.Stderr)
	}
}

// Each command of docs/rbac.md, run through kubectl as a ServiceAccount
// bound to exactly its documented role, runs whole: audit, watch pod (a
// deletion by someone else), drain node, drain node --watch, uncordon.
func TestDocumentedRolesSuffice(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	roles := documentedRoles(t)
	for _, name := range []string{"audit", "watch", "drain", "drain-watch", "uncordon"} {
		if _, ok := roles["kubectl-graceful-"+name]; !ok {
			t.Fatalf("docs/rbac.md has no ClusterRole kubectl-graceful-%s (has %d roles)", name, len(roles))
		}
	}
	as := func(ns, name string) string { return boundTo(t, env, ns, roles["kubectl-graceful-"+name]) }
	ns, first, second := env.Namespace(t), env.Node(t), env.Node(t)
	deployOn(t, env, ns, first, "web", 2, func(*corev1.PodSpec) {}, podsReady(2))
	deployOn(t, env, ns, second, "api", 2, func(*corev1.PodSpec) {}, podsReady(2))

	unrefused(t, "audit", env.Kubectl(t, "graceful", "audit", "-n", ns, "--as", as(ns, "audit")), 0, 2)

	pods, err := env.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil || len(pods.Items) == 0 {
		t.Fatalf("pods of web: %v", err)
	}
	pod := pods.Items[0].Name
	w := env.StartKubectl(t, 2*time.Minute, "graceful", "watch", "pod", pod, "-n", ns, "--settle", "1s", "--timeout", "90s", "--as", as(ns, "watch"))
	w.WaitOutput(t, time.Minute, "waiting for pod")
	if err := env.Client.CoreV1().Pods(ns).Delete(context.Background(), pod, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	unrefused(t, "watch pod", w.Wait(), 0, 2)

	// The drain's role without services: the preflight says it cannot
	// tell about load balancers, instead of saying nothing.
	noServices := roles["kubectl-graceful-drain"]
	noServices.Name, noServices.Rules = "kubectl-graceful-drain-no-services", nil
	for _, r := range roles["kubectl-graceful-drain"].Rules {
		if !slices.Contains(r.Resources, "services") {
			noServices.Rules = append(noServices.Rules, r)
		}
	}
	dry := env.Kubectl(t, "graceful", "drain", "node", first, "--dry-run=client", "--as", boundTo(t, env, ns, noServices))
	if !strings.Contains(dry.Stdout, "[lb-not-excluded] cannot tell whether a LoadBalancer Service sends connections to node "+first) {
		t.Errorf("drain --dry-run without services: no lb-not-excluded 'cannot tell' warning:\n%s\n%s", dry.Stdout, dry.Stderr)
	}

	unrefused(t, "drain node", env.Kubectl(t, "graceful", "drain", "node", first, "--timeout", "60s", "--as", as(ns, "drain")), 0)
	unrefused(t, "drain node --watch", env.Kubectl(t, "graceful", "drain", "node", second, "--timeout", "60s", "--watch", "--as", as(ns, "drain-watch")), 0, 2)
	unrefused(t, "uncordon", env.Kubectl(t, "graceful", "uncordon", first, second, "--as", as(ns, "uncordon")), 0)
}
