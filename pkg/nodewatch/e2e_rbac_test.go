package nodewatch_test

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// watcherRules are what `watch node` reads, cluster-wide.
var watcherRules = []rbacv1.PolicyRule{
	{APIGroups: []string{""}, Resources: []string{"nodes", "pods", "services", "events"}, Verbs: []string{"get", "list", "watch"}},
	{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: []string{"get", "list", "watch"}},
	{APIGroups: []string{"policy"}, Resources: []string{"poddisruptionbudgets"}, Verbs: []string{"get", "list", "watch"}},
	{APIGroups: []string{"apps"}, Resources: []string{"replicasets"}, Verbs: []string{"get"}},
}

// withoutResource returns the rules minus one resource.
func withoutResource(resource string) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	for _, r := range watcherRules {
		r := r
		var keep []string
		for _, res := range r.Resources {
			if res != resource {
				keep = append(keep, res)
			}
		}
		if len(keep) > 0 {
			r.Resources = keep
			out = append(out, r)
		}
	}
	return out
}

// serviceAccountWith makes a ServiceAccount in ns bound cluster-wide to
// rules, and returns its --as name.
func serviceAccountWith(t *testing.T, env *e2e.Env, ns, name string, rules []rbacv1.PolicyRule) string {
	t.Helper()
	ctx := context.Background()
	if _, err := env.Client.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	role := ns + "-" + name
	if _, err := env.Client.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: role}, Rules: rules}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	b := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role}, RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: name, Namespace: ns}}}
	if _, err := env.Client.RbacV1().ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.Client.RbacV1().ClusterRoleBindings().Delete(context.Background(), role, metav1.DeleteOptions{})
		_ = env.Client.RbacV1().ClusterRoles().Delete(context.Background(), role, metav1.DeleteOptions{})
	})
	return "system:serviceaccount:" + ns + ":" + name
}

func cordon(t *testing.T, env *e2e.Env, node string) {
	t.Helper()
	if _, err := env.Client.CoreV1().Nodes().Patch(context.Background(), node, types.MergePatchType, []byte(`{"spec":{"unschedulable":true}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestWatchNodeRBACMissing: `watch node` as a ServiceAccount that may not
// read one of Services, EndpointSlices or Events goes on with what it
// sees, says in one line what is missing and what it cannot tell, and
// never says SAFE: exit 2, "cannot tell". Shared setup: one node per
// subtest, each holding one pod (a 6 s preStop: no race) of its own
// Deployment behind a Service, deleted while watched.
func TestWatchNodeRBACMissing(t *testing.T) {
	env := e2e.Cluster(t)
	ns := env.Namespace(t)
	cases := []struct{ resource, note, finding string }{
		{"services", "cannot list Services", "cannot tell: the Services could not be listed"},
		{"endpointslices", "cannot watch EndpointSlices", "cannot tell: the EndpointSlices could not be watched"},
		{"events", "cannot watch Events", "cannot tell: the Events could not be watched"},
	}
	_, nodes := pool(t, env, len(cases))
	extra, open := spare(t, env)
	for i := range cases {
		served(t, env, ns, "web-"+strconv.Itoa(i), []string{nodes[i], extra}, 1, 6)
	}
	open()
	for i, c := range cases {
		t.Run("without "+c.resource, func(t *testing.T) {
			as := serviceAccountWith(t, env, ns, "no-"+c.resource, withoutResource(c.resource))
			cordon(t, env, nodes[i])
			w := env.StartKubectl(t, 2*time.Minute, "graceful", "watch", "node", nodes[i], "--settle", "1s", "--timeout", "90s", "--as", as)
			w.WaitOutput(t, time.Minute, "note: "+c.note)
			time.Sleep(2 * time.Second) // the other watches' first Lists
			pods, err := env.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "app=web-" + strconv.Itoa(i)})
			if err != nil || len(pods.Items) != 1 {
				t.Fatalf("pods: %v %d", err, len(pods.Items))
			}
			if err := env.Client.CoreV1().Pods(ns).Delete(context.Background(), pods.Items[0].Name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			res := w.Wait()
			out := res.Stdout
			live, _, _ := strings.Cut(out, "Drain verdict for")
			if res.ExitCode != 2 || strings.Count(live, "note: "+c.note) != 1 || strings.Count(out, c.finding) != 1 || strings.Contains(out, "SAFE") || strings.Contains(out, "0 of 0") ||
				!strings.Contains(out, "1 pod(s) of 1 workload(s) terminated") {
				t.Errorf("exit %d, want 2, one note %q, one finding %q, no SAFE, the pod judged:\n%s\n%s", res.ExitCode, c.note, c.finding, out, res.Stderr)
			}
		})
	}
}

// TestWatchNodeDrainPoolMaxConcurrent: `drain node -l POOL --watch
// --max-concurrent-nodes 2` on a pool of 3 nodes judges every pod once and
// the summary counts them all; the drain's and the watch's live lines
// carry one clock, non-decreasing in the order written.
func TestWatchNodeDrainPoolMaxConcurrent(t *testing.T) {
	env := e2e.Cluster(t)
	ns := env.Namespace(t)
	sel, nodes := pool(t, env, 3)
	extra, open := spare(t, env)
	served(t, env, ns, "web", append(nodes, extra), 6, 1)
	open()
	pods, err := env.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil || len(pods.Items) != 6 {
		t.Fatalf("pods: %v", err)
	}
	res := env.Kubectl(t, "graceful", "drain", "node", "-l", sel, "--ignore-daemonsets", "--watch", "--max-concurrent-nodes", "2", "--timeout", "100s")
	out := res.Stdout
	defer func() {
		if t.Failed() {
			t.Logf("output:\n%s\n%s", out, res.Stderr)
		}
	}()
	if !strings.Contains(out, "Pool summary: 3 node(s), 3 drained") || !strings.Contains(out, "6 pod(s) of 1 workload(s) terminated on 3 node(s)") {
		t.Fatalf("exit %d, want the 3 nodes drained and 6 pods judged:\n%s\n%s", res.ExitCode, out, res.Stderr)
	}
	for _, p := range pods.Items {
		if n := len(regexp.MustCompile(`(?m)^.*`+p.Name+`.*deletionTimestamp set`).FindAllString(out, -1)); n != 1 {
			t.Errorf("pod %s: %d deletion lines, want 1", p.Name, n)
		}
	}
	// The verdict's table, not the preflight's (whose lines carry the
	// drain's stamp): NAMESPACE, WORKLOAD, NODES, TERMINATED.
	row := regexp.MustCompile(`(?m)^│ ` + ns + `\s*│ Deployment/web\s*│[^│]*│\s*(\d+)\s`).FindStringSubmatch(out)
	if row == nil || row[1] != "6" {
		t.Errorf("table row %q: want 6 terminated", row)
	}
	checkOneClock(t, out)
}

// checkOneClock asserts that the live lines of drain --watch carry the
// stamp of one clock, non-decreasing in the order written, on the
// drain's lines and the watch's alike.
func checkOneClock(t *testing.T, out string) {
	t.Helper()
	stamp := regexp.MustCompile(`^\[\+ *(\d+\.\d{3}) s\] `)
	// A clock of the line's own: the watch's "+524 ms" column, the
	// drain's "+0.5 s".
	second := regexp.MustCompile(`(^|\s)[+-]\d+ ms\s|(^|\s)\+\d+\.\d s\s`)
	last, drainLines, watchLines := -1.0, 0, 0
	for _, l := range strings.Split(out, "\n") {
		m := stamp.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if second.MatchString(strings.TrimPrefix(l, m[0])) {
			t.Errorf("a second clock in %q", l)
		}
		at, _ := strconv.ParseFloat(m[1], 64)
		if at < last {
			t.Errorf("stamp %.3f after %.3f: not in order in %q", at, last, l)
		}
		last = at
		switch {
		case strings.Contains(l, "deletionTimestamp set"):
			watchLines++
		case strings.Contains(l, " gone") || strings.Contains(l, "evict"):
			drainLines++
		}
	}
	if drainLines == 0 || watchLines == 0 {
		t.Errorf("stamped lines: %d of the drain, %d of the watch; want both:\n%s", drainLines, watchLines, out)
	}
}
