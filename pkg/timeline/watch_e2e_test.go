package timeline_test

import (
	"context"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timeline/render"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// tol is the tolerance on simulated times: kwok acts on its own watch, the
// server's times are whole seconds, and the machine is shared.
const tol = 1500

// The watch scenarios, each on the local cluster with the termination
// simulation (sim.graceful.test annotations) as known ground truth, each
// running the plugin through the real kubectl.
func TestWatchPodE2E(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	ctx := context.Background()

	t.Run("1 naive Deployment without preStop races", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		// Two replicas: the other keeps the Service a ready endpoint (a
		// last replica keeps traffic until it stops serving: watch_truth).
		pods := createDeployment(t, env, ns, node, "web", 2, podOpts{grace: 30})
		createService(t, env, ns, "web", nil, &pods[0])
		stdout, stderr, code := kubectl(t, env, watchJSON(ns, pods[0].Name, "--delete")...)
		r := parseRun(t, stdout, stderr, code)
		if r.code != 2 {
			t.Errorf("exit %d, want 2 (risk); stderr: %s", r.code, r.stderr)
		}
		sent := r.first(t, timeline.KindDeleteSent, "DELETE sent")
		seen := r.first(t, timeline.KindDeletionSeen, "grace period 30 s")
		term := r.first(t, timeline.KindEndpointChanged, "ready=false serving=true terminating=true")
		kill := r.first(t, timeline.KindKilling, "Stopping container")
		exit := r.first(t, timeline.KindContainerExit, "exited 0")
		removed := r.first(t, timeline.KindEndpointRemoved, "")
		gone := r.first(t, timeline.KindPodGone, "")
		// Pod and EndpointSlice changes arrive on different watches, which
		// the API server does not order against each other (they can land
		// within a few ms in either order): check the order within each.
		ordered(t, "pod watch", sent, seen, gone)
		ordered(t, "EndpointSlice watch", sent, term, removed)
		ordered(t, "kubelet", kill, exit)
		near(t, "exit (no preStop: 1 s)", exit.Ms, 1000, tol)
		v := r.summary.Verdict
		if !v.Risk || !(findingWith(v, "no preStop delay") || findingWith(v, "race window")) {
			t.Errorf("verdict %+v, want the no-preStop race", v.Findings)
		}
		near(t, "SIGTERM estimate = Killing", v.SigtermMs, msOf(t, kill), 0)
		near(t, "endpoint out", v.EndpointOutMs, msOf(t, term), 0)
	})

	t.Run("2 preStop sleep 5 grace 45 is safe", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		createServedPods(t, env, ns, node, podOpts{grace: 45, preStop: 5})
		stdout, stderr, code := kubectl(t, env, "watch", "pod", "web-0", "-n", ns, "--delete", "--settle", "1s", "--timeout", "90s")
		if code != 0 {
			t.Errorf("exit %d, want 0 (safe); stderr: %s\n%s", code, stderr, stdout)
		}
		// The pod's changes and the endpoint's arrive on different watches,
		// in either order (the endpoint's removal, caused by the exit, was
		// seen 1 ms before the exit itself once): check each stream.
		inOrder(t, stdout, "DELETE sent", "deletionTimestamp set: grace period 45 s", "container app exited 0", "pod object deleted")
		inOrder(t, stdout, "DELETE sent", "endpoint ready=false serving=true terminating=true",
			"endpoint removed", "control plane", "kubelet", "SAFE")
		out := number(t, stdout, `endpoint out of every ready set at \+(-?\d+) ms`)
		sig := number(t, stdout, `SIGTERM estimated at \+(\d+) ms`)
		exit := number(t, stdout, `container app exited 0 at \+(\d+) ms`)
		near(t, "endpoint out", &out, 0, tol)
		near(t, "SIGTERM (Killing + 5 s)", &sig, 5000, tol)
		near(t, "exit (preStop + 1 s)", &exit, 6000, tol)
		if !strings.Contains(stdout, "window: SIGTERM came") {
			t.Errorf("no window in the verdict:\n%s", stdout)
		}
	})

	t.Run("3 app ignores SIGTERM: 137 at the deadline", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		pod := createPod(t, env, ns, node, "web-0", podOpts{grace: 3, exitAfter: "60s"})
		createService(t, env, ns, "web", nil, pod)
		stdout, stderr, code := kubectl(t, env, watchJSON(ns, "web-0", "--delete")...)
		r := parseRun(t, stdout, stderr, code)
		exit := r.first(t, timeline.KindContainerExit, "exited 137")
		near(t, "SIGKILL at the grace deadline", exit.Ms, 3000, tol)
		if r.code != 2 || !findingWith(r.summary.Verdict, "SIGKILLed (exit 137)") {
			t.Errorf("exit %d, findings %v: want 2 and the SIGKILL", r.code, r.summary.Verdict.Findings)
		}
	})

	t.Run("4 preStop longer than the grace period", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		pod := createPod(t, env, ns, node, "web-0", podOpts{grace: 3, preStop: 20, execSleep: true})
		createService(t, env, ns, "web", nil, pod)
		stdout, stderr, code := kubectl(t, env, watchJSON(ns, "web-0", "--delete")...)
		r := parseRun(t, stdout, stderr, code)
		exit := r.first(t, timeline.KindContainerExit, "exited 137")
		near(t, "the simulated exit at the deadline", exit.Ms, 3000, tol)
		v := r.summary.Verdict
		if r.code != 2 || !v.PreStopAbandoned || v.SigtermMs == nil || !findingWith(v, "abandons the hook") || findingWith(v, "never sent") {
			t.Errorf("exit %d, verdict %+v: want 2, the hook abandoned and SIGTERM at the deadline", r.code, v)
		} else {
			near(t, "SIGTERM when the kubelet abandons the hook", v.SigtermMs, 3000, tol)
		}
	})

	t.Run("5 behind two Services, waiting for someone else's delete", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		pod := createPod(t, env, ns, node, "web-0", podOpts{grace: 10, preStop: 5})
		createPod(t, env, ns, node, "web-1", podOpts{grace: 10, preStop: 5}) // another ready endpoint
		createService(t, env, ns, "web", nil, pod)
		createService(t, env, ns, "web-canary", nil, pod)
		l := startLive(t, env.Kubeconfig, "watch", "pod", "web-0", "-n", ns, "-o", "json", "--settle", "1s", "--timeout", "90s")
		l.waitFor("waiting for pod", 30*time.Second)
		if err := env.Client.CoreV1().Pods(ns).Delete(ctx, "web-0", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		r := l.wait()
		if r.code != 0 {
			t.Errorf("exit %d, want 0; findings %v; stderr %s", r.code, r.summary.Verdict.Findings, r.stderr)
		}
		if r.summary.T0Source != "deletion-seen" || strings.Join(r.summary.Services, ",") != "web,web-canary" {
			t.Errorf("t0 %q services %v", r.summary.T0Source, r.summary.Services)
		}
		seen := map[string]render.JSONEvent{}
		for _, e := range r.events {
			if e.Kind == timeline.KindEndpointChanged && e.Endpoint != nil && !e.Endpoint.Ready {
				seen[e.Service] = e
			}
		}
		if len(seen) != 2 {
			t.Fatalf("endpoint left the ready set in %d Services' slices, want 2:\n%s", len(seen), r.stdout)
		}
		v := r.summary.Verdict
		for svc, e := range seen {
			if v.EndpointOutMs == nil || *v.EndpointOutMs < msOf(t, e) {
				t.Errorf("endpoint out at %v, before it left %s's slice at %d", v.EndpointOutMs, svc, msOf(t, e))
			}
		}
		near(t, "exit (preStop 5 + 1 s)", r.first(t, timeline.KindContainerExit, "exited 0").Ms, 6000, tol)
	})

	t.Run("6 behind no Service, mermaid", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		createPod(t, env, ns, node, "batch-0", podOpts{grace: 10, exitAfter: "1s"})
		stdout, stderr, code := kubectl(t, env, "watch", "pod", "batch-0", "-n", ns, "--delete", "-o", "mermaid", "--settle", "1s", "--timeout", "60s")
		if code != 0 || !strings.Contains(stderr, "not behind any Service: no endpoint race") {
			t.Errorf("exit %d, stderr:\n%s", code, stderr)
		}
		if !strings.HasPrefix(stdout, "gantt\n") || !strings.Contains(stdout, "section kubelet") || !strings.Contains(stdout, "app exit 0") {
			t.Errorf("mermaid output:\n%s", stdout)
		}
	})

	t.Run("7 FailedPreStopHook", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		pod := createPod(t, env, ns, node, "web-0", podOpts{grace: 30, preStop: 5, preStopBad: true})
		createService(t, env, ns, "web", nil, pod)
		stdout, stderr, code := kubectl(t, env, watchJSON(ns, "web-0", "--delete")...)
		r := parseRun(t, stdout, stderr, code)
		failed := r.first(t, timeline.KindPreStopFailed, "")
		exit := r.first(t, timeline.KindContainerExit, "exited 0")
		ordered(t, "kubelet", r.first(t, timeline.KindKilling, ""), failed, exit)
		near(t, "exit without the preStop delay", exit.Ms, 1000, tol)
		v := r.summary.Verdict
		if r.code != 2 || !v.PreStopFailed || !findingWith(v, "delay never happened") {
			t.Errorf("exit %d verdict %+v", r.code, v)
		}
	})

	t.Run("8 evict blocked by a PDB, then allowed", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		pods := createDeployment(t, env, ns, node, "web", 1, podOpts{grace: 10, preStop: 5})
		createService(t, env, ns, "web", nil, &pods[0])
		createPDB(t, env, ns, 1)
		l := startLive(t, env.Kubeconfig, append(watchJSON(ns, pods[0].Name, "--evict"), "--timeout", "120s")...)
		l.waitFor(`"kind":"eviction-refused"`, 30*time.Second)
		scale(t, env, ns, "web", 2)
		r := l.wait()
		refused := r.first(t, timeline.KindEvictionRefused, "The disruption budget web-pdb needs 1 healthy pods")
		accepted := r.first(t, timeline.KindDeleteSent, "Eviction accepted")
		if refused.Ms != nil || !refused.Local.Before(accepted.Local) {
			t.Errorf("the refusal (ms %v, at %v) should be printed before the delete request time is known, before the accepted eviction (%v)", refused.Ms, refused.Local, accepted.Local)
		}
		disruption := r.first(t, timeline.KindCondition, "DisruptionTarget=True")
		ordered(t, "eviction", accepted, disruption, r.first(t, timeline.KindContainerExit, "exited 0"), r.first(t, timeline.KindPodGone, ""))
		if r.code != 0 || r.summary.T0Source != timeline.T0EvictionAccepted {
			t.Errorf("exit %d t0 %q findings %v", r.code, r.summary.T0Source, r.summary.Verdict.Findings)
		}
	})

	t.Run("9 watch connection cut mid-termination", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		createServedPods(t, env, ns, node, podOpts{grace: 30, preStop: 5})
		proxy, kc := e2e.ProxyTo(t, env.Kubeconfig)
		l := startLive(t, kc, watchJSON(ns, "web-0", "--delete")...)
		l.waitFor(`"kind":"killing"`, 30*time.Second)
		time.Sleep(500 * time.Millisecond)
		proxy.Cut(2 * time.Second)
		r := l.wait()
		if len(r.summary.Gaps) == 0 {
			t.Fatalf("no gap marked after the cut:\n%s", r.stdout)
		}
		for _, g := range r.summary.Gaps {
			if g.FromMs == nil || g.ToMs == nil || *g.ToMs-*g.FromMs < 1000 {
				t.Errorf("gap %+v: want it closed, at least 1 s long (connections refused for 2 s)", g)
			}
		}
		gapLine := false
		for _, e := range r.events {
			gapLine = gapLine || e.Type == "gap"
		}
		exit := r.first(t, timeline.KindContainerExit, "exited 0")
		r.first(t, timeline.KindPodGone, "")
		near(t, "exit (preStop + 1 s)", exit.Ms, 6000, tol+2000)
		if !gapLine || !findingWith(r.summary.Verdict, "(gaps marked above)") || r.code != 0 {
			t.Errorf("gap line %v, exit %d, findings %v", gapLine, r.code, r.summary.Verdict.Findings)
		}
	})

	t.Run("10 --delete on a pod already terminating", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		pod := createPod(t, env, ns, node, "web-0", podOpts{grace: 30, exitAfter: "5s"})
		createService(t, env, ns, "web", nil, pod)
		if err := env.Client.CoreV1().Pods(ns).Delete(ctx, "web-0", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code := kubectl(t, env, watchJSON(ns, "web-0", "--delete")...)
		r := parseRun(t, stdout, stderr, code)
		if r.has(timeline.KindDeleteSent) {
			t.Error("a second DELETE was sent for a terminating pod")
		}
		if seen := r.first(t, timeline.KindDeletionSeen, ""); !seen.Initial {
			t.Error("the deletion found at start is not marked as before the watch")
		}
		r.first(t, timeline.KindContainerExit, "exited 0")
		r.first(t, timeline.KindPodGone, "")
		if r.code != 0 || !findingWith(r.summary.Verdict, "already terminating") {
			t.Errorf("exit %d findings %v", r.code, r.summary.Verdict.Findings)
		}
	})

	t.Run("pod not found exits 1", func(t *testing.T) {
		t.Parallel()
		ns := env.Namespace(t)
		_, stderr, code := kubectl(t, env, "watch", "pod", "nope", "-n", ns, "--delete")
		if code != 1 || strings.TrimSpace(stderr) != `error: pod "nope" not found in namespace "`+ns+`"` {
			t.Errorf("exit %d stderr %q", code, stderr)
		}
	})
}

// kubectl runs `kubectl graceful ARGS` through env.Kubectl.
func kubectl(t *testing.T, env *e2e.Env, args ...string) (string, string, int) {
	t.Helper()
	res := env.Kubectl(t, append([]string{"graceful"}, args...)...)
	return res.Stdout, res.Stderr, res.ExitCode
}

// inOrder checks that each of subs appears in s after the previous one.
func inOrder(t *testing.T, s string, subs ...string) {
	t.Helper()
	rest := s
	for _, sub := range subs {
		i := strings.Index(rest, sub)
		if i < 0 {
			t.Fatalf("%q missing or out of order in:\n%s", sub, s)
		}
		rest = rest[i+len(sub):]
	}
}

func number(t *testing.T, s, re string) int64 {
	t.Helper()
	m := regexp.MustCompile(re).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no %s in:\n%s", re, s)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}

func createPDB(t *testing.T, env *e2e.Env, ns string, minAvailable int) {
	t.Helper()
	min := intstr.FromInt(minAvailable)
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "web-pdb"}, Spec: policyv1.PodDisruptionBudgetSpec{
		MinAvailable: &min, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
	if _, err := env.Client.PolicyV1().PodDisruptionBudgets(ns).Create(context.Background(), pdb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		p, err := env.Client.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, "web-pdb", metav1.GetOptions{})
		return err == nil && p.Status.ObservedGeneration == p.Generation && p.Status.CurrentHealthy >= 1, nil
	})
	if err != nil {
		t.Fatalf("the disruption controller never counted the PDB: %v", err)
	}
}

func scale(t *testing.T, env *e2e.Env, ns, name string, replicas int32) {
	t.Helper()
	s, err := env.Client.AppsV1().Deployments(ns).GetScale(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Spec.Replicas = replicas
	if _, err := env.Client.AppsV1().Deployments(ns).UpdateScale(context.Background(), name, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// RBAC that forbids Services, EndpointSlices and Events: the watch goes on
// with the pod alone and says what it could not see.
func TestWatchPodE2EDegradesUnderRBAC(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	ns, node := env.Namespace(t), env.Node(t)
	pod := createPod(t, env, ns, node, "web-0", podOpts{grace: 10, preStop: 1})
	createService(t, env, ns, "web", nil, pod)
	kc := restrictedKubeconfig(t, env, ns, []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"},
		Verbs: []string{"get", "list", "watch", "delete"}}})
	res := e2e.RunKubectl(t, []string{"KUBECONFIG=" + kc}, "graceful", "watch", "pod", "web-0", "-n", ns, "--delete", "--settle", "1s", "--timeout", "60s")
	for _, want := range []string{"cannot list Services", "cannot watch EndpointSlices", "cannot watch Events",
		"container app exited 0", "NO VERDICT ON THE RACE", "SIGTERM estimated at +1000 ms (the delete request (no Killing event seen) + preStop 1s)"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("output lacks %q:\n%s\nstderr: %s", want, res.Stdout, res.Stderr)
		}
	}
	if res.ExitCode != 0 {
		t.Errorf("exit %d, want 0 (degraded, no risk seen)", res.ExitCode)
	}
}

// restrictedKubeconfig writes a kubeconfig for a new ServiceAccount of ns
// bound to a Role with rules.
func restrictedKubeconfig(t *testing.T, env *e2e.Env, ns string, rules []rbacv1.PolicyRule) string {
	t.Helper()
	ctx := context.Background()
	c := env.Client
	if _, err := c.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "limited"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "limited"}, Rules: rules}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "limited"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "limited"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "limited", Namespace: ns}}}
	if _, err := c.RbacV1().RoleBindings(ns).Create(ctx, rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tok, err := c.CoreV1().ServiceAccounts(ns).CreateToken(ctx, "limited", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rc := env.RESTConfig
	cfg := clientcmdapi.NewConfig()
	cluster := clientcmdapi.NewCluster()
	cluster.Server, cluster.CertificateAuthority, cluster.CertificateAuthorityData = rc.Host, rc.CAFile, rc.CAData
	cluster.InsecureSkipTLSVerify = rc.Insecure
	cfg.Clusters["local"] = cluster
	user := clientcmdapi.NewAuthInfo()
	user.Token = tok.Status.Token
	cfg.AuthInfos["limited"] = user
	kctx := clientcmdapi.NewContext()
	kctx.Cluster, kctx.AuthInfo, kctx.Namespace = "local", "limited", ns
	cfg.Contexts["limited"] = kctx
	cfg.CurrentContext = "limited"
	path := filepath.Join(t.TempDir(), "kubeconfig-limited")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// An unreachable cluster is one error line and exit 1, never a hang.
func TestWatchPodUnreachableCluster(t *testing.T) {
	t.Parallel()
	e2e.Require(t, "runs the built plugin through kubectl")
	cfg := clientcmdapi.NewConfig()
	cluster := clientcmdapi.NewCluster()
	cluster.Server = "https://127.0.0.1:1"
	cfg.Clusters["gone"] = cluster
	cfg.AuthInfos["u"] = clientcmdapi.NewAuthInfo()
	kctx := clientcmdapi.NewContext()
	kctx.Cluster, kctx.AuthInfo = "gone", "u"
	cfg.Contexts["gone"] = kctx
	cfg.CurrentContext = "gone"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	res := e2e.RunKubectl(t, []string{"KUBECONFIG=" + path}, "graceful", "watch", "pod", "web-0", "--delete")
	lines := strings.Split(strings.TrimSpace(res.Stderr), "\n")
	if res.ExitCode != 1 || len(lines) != 1 || !strings.HasPrefix(lines[0], `error: cannot reach the cluster of context "gone" (server https://127.0.0.1:1): reading pod default/web-0: `) {
		t.Errorf("exit %d, stderr %q: want 1 and one error line", res.ExitCode, res.Stderr)
	}
}
