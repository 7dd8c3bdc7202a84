package timeline_test

import (
	"context"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// The hard cases of the verdict, on the local cluster through the real
// kubectl: a Service with no other ready endpoint, a window shorter than
// --propagation, a sidecar stopped before the app.
func TestWatchPodTruthE2E(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)

	t.Run("last replica: 1-replica Deployment, --delete", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		pods := createDeployment(t, env, ns, node, "web", 1, podOpts{grace: 30})
		createService(t, env, ns, "web", nil, &pods[0])
		stdout, stderr, code := kubectl(t, env, watchJSON(ns, pods[0].Name, "--delete")...)
		r := parseRun(t, stdout, stderr, code)
		v := r.summary.Verdict
		if r.code != 2 {
			t.Fatalf("exit %d, want 2 (no preStop); findings %v", r.code, v.Findings)
		}
		if len(v.NoReadyEndpoint) == 0 {
			// The EndpointSlice controller may put this endpoint's
			// terminating state and the replacement's ready one in one
			// update (seen once): the Service never lacked a ready
			// endpoint, and no fallback may be claimed.
			if findingWith(v, "had no ready endpoint") || v.EndpointOutMs == nil || v.ReadyOutMs == nil || *v.EndpointOutMs != *v.ReadyOutMs {
				t.Errorf("no fallback, yet traffic ends at +%v ms, ready set left at +%v ms: %v", v.EndpointOutMs, v.ReadyOutMs, v.Findings)
			}
			return
		}
		if strings.Join(v.NoReadyEndpoint, ",") != "web" || !findingWith(v, "Service web had no ready endpoint left") {
			t.Fatalf("services without ready endpoint %v, findings %v", v.NoReadyEndpoint, v.Findings)
		}
		// The fallback ends when the replacement turns ready, which a
		// second EndpointSlice update may bring within the same
		// millisecond as the first (its own update, so a moment kube-proxy
		// can see): traffic then ends at the ready set's ms, never before.
		if findingWith(v, "endpoint out of every ready set") || v.EndpointOutMs == nil || v.ReadyOutMs == nil || *v.EndpointOutMs < *v.ReadyOutMs {
			t.Errorf("the pod is said to stop receiving traffic at +%v ms, when it left the ready set (+%v ms): %v", v.EndpointOutMs, v.ReadyOutMs, v.Findings)
		}
		// Traffic stops when the replacement's endpoint turns ready or this
		// one stops serving: one of those changes is at EndpointOutMs.
		if !trafficEndsAt(r, *v.EndpointOutMs, true) {
			t.Errorf("no replacement turning ready nor end of serving at +%d ms:\n%s", *v.EndpointOutMs, r.stdout)
		}
	})

	t.Run("scale to 0: the pod keeps traffic until it stops serving", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		pods := createDeployment(t, env, ns, node, "web", 1, podOpts{grace: 10, preStop: 2})
		createService(t, env, ns, "web", nil, &pods[0])
		l := startLive(t, env.Kubeconfig, watchJSON(ns, pods[0].Name)...)
		l.waitFor("waiting for pod", 30*time.Second)
		scale(t, env, ns, "web", 0)
		r := l.wait()
		v := r.summary.Verdict
		exit := r.first(t, timeline.KindContainerExit, "exited 0")
		if v.EndpointOutMs == nil || *v.EndpointOutMs < msOf(t, exit)-tol || !trafficEndsAt(r, *v.EndpointOutMs, false) {
			t.Errorf("traffic said to stop at +%v ms, want when the endpoint stopped serving, after the exit at +%d ms:\n%s", v.EndpointOutMs, msOf(t, exit), r.stdout)
		}
		near(t, "SIGTERM (Killing + 2 s)", v.SigtermMs, 2000, tol)
		if r.code != 2 || !findingWith(v, "BEFORE it stopped receiving traffic") || !findingWith(v, "until it stopped serving") {
			t.Errorf("exit %d findings %v: want the race against the end of serving", r.code, v.Findings)
		}
	})

	t.Run("preStop 1 s: a window shorter than --propagation", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		createServedPods(t, env, ns, node, podOpts{grace: 30, preStop: 1})
		stdout, stderr, code := kubectl(t, env, watchJSON(ns, "web-0", "--delete")...)
		r := parseRun(t, stdout, stderr, code)
		v := r.summary.Verdict
		if v.WindowMs == nil || *v.WindowMs <= 0 {
			t.Fatalf("window %v: the test wants a positive window; findings %v", v.WindowMs, v.Findings)
		}
		// SIGTERM is Killing + 1 s; the shortfall is what is left of 5 s.
		if v.ShortByMs == nil || v.SigtermMs == nil || *v.ShortByMs <= 0 || *v.ShortByMs != 5000-*v.SigtermMs {
			t.Errorf("short by %v ms with SIGTERM at +%v ms: want 5000 ms minus the SIGTERM time", v.ShortByMs, v.SigtermMs)
		}
		if r.code != 2 || v.PropagationMs != 5000 || !findingWith(v, "window too short") || !findingWith(v, "short of the 5s (--propagation)") {
			t.Errorf("exit %d findings %v", r.code, v.Findings)
		}
	})

	t.Run("preStop 2 s meets --propagation 1s", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		createServedPods(t, env, ns, node, podOpts{grace: 30, preStop: 2})
		stdout, stderr, code := kubectl(t, env, watchJSON(ns, "web-0", "--delete", "--propagation", "1s")...)
		r := parseRun(t, stdout, stderr, code)
		if v := r.summary.Verdict; r.code != 0 || v.PropagationMs != 1000 || v.ShortByMs != nil {
			t.Errorf("exit %d propagation %d findings %v", r.code, v.PropagationMs, v.Findings)
		}
	})

	t.Run("istio-proxy without preStop stops before the app", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		o := podOpts{grace: 40, preStop: 15, sidecar: "istio-proxy"}
		createServedPods(t, env, ns, node, o)
		stdout, stderr, code := kubectl(t, env, watchJSON(ns, "web-0", "--delete")...)
		r := parseRun(t, stdout, stderr, code)
		v := r.summary.Verdict
		if r.code != 2 || v.StopContainer != "istio-proxy" || !findingWith(v, "container istio-proxy has no preStop") ||
			!findingWith(v, "while container app still slept in its preStop (15s)") {
			t.Errorf("exit %d stop container %q findings %v", r.code, v.StopContainer, v.Findings)
		}
		near(t, "the proxy's SIGTERM (Killing)", v.SigtermMs, msOf(t, r.first(t, timeline.KindKilling, "")), 0)
		// The simulated kubelet ends both containers in one status
		// update; finishedAt comes back in whole seconds, so the order
		// is not claimed.
		for _, c := range v.Containers {
			if c.Exit == nil || c.Exit.Server.Nanosecond() != 0 {
				t.Errorf("container %s: exit %+v, want its own exit with a whole-second finishedAt", c.Name, c.Exit)
			}
		}
		if !findingWith(v, "which of app, istio-proxy stopped first cannot be told (finishedAt is whole seconds") {
			t.Errorf("exit order: findings %v", v.Findings)
		}
	})

	t.Run("a hook of unknown length is judged from the exit", func(t *testing.T) {
		t.Parallel()
		drain := &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"/app/drain", "--wait"}}}
		for exitAfter, want := range map[string]string{"2s": "window too short: the preStop hook of container app has a length the spec does not tell",
			"12s": "cannot tell whether the pod had the 5s (--propagation) after it left the traffic"} {
			ns, node := env.Namespace(t), env.Node(t)
			createServedPods(t, env, ns, node, podOpts{grace: 30, hook: drain, exitAfter: exitAfter})
			stdout, stderr, code := kubectl(t, env, watchJSON(ns, "web-0", "--delete", "--propagation", "5s")...)
			r := parseRun(t, stdout, stderr, code)
			v := r.summary.Verdict
			if r.code != 2 || !v.Risk || v.SigtermMs != nil || v.SigtermLatestMs == nil || !findingWith(v, want) {
				t.Errorf("exit after %s: exit %d risk %v estimate %v latest %v, want %q in %v", exitAfter, r.code, v.Risk, v.SigtermMs, v.SigtermLatestMs, want, v.Findings)
			}
		}
	})

	t.Run("native sidecar is stopped after the app", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		o := podOpts{grace: 40, preStop: 5, sidecar: "istio-proxy", nativeSidecar: true}
		createServedPods(t, env, ns, node, o)
		stdout, stderr, code := kubectl(t, env, watchJSON(ns, "web-0", "--delete")...)
		r := parseRun(t, stdout, stderr, code)
		v := r.summary.Verdict
		if r.code != 0 || v.StopContainer != "app" || findingWith(v, "has no preStop") {
			t.Errorf("exit %d stop container %q findings %v", r.code, v.StopContainer, v.Findings)
		}
		native := false
		for _, c := range v.Containers {
			native = native || (c.Name == "istio-proxy" && c.NativeSidecar && !c.StoppedBeforeApp)
		}
		if !native {
			t.Errorf("containers %+v: istio-proxy not seen as a native sidecar", v.Containers)
		}
	})

	t.Run("a stalled watch is marked", func(t *testing.T) {
		t.Parallel()
		l, _ := deletedBehindProxy(t, env, func(p *e2e.CutProxy) { p.Pause(4 * time.Second) })
		r := l.wait()
		stalls := 0
		for _, g := range r.summary.Gaps {
			if g.Stalled {
				stalls++
			}
		}
		stallLine := false
		for _, e := range r.events {
			stallLine = stallLine || (e.Type == "gap" && e.Gap != nil && e.Gap.Stalled)
		}
		if stalls == 0 || !stallLine || !findingWith(r.summary.Verdict, "the watch stalled") {
			t.Errorf("stalls %d, stall line %v, findings %v; gaps %+v", stalls, stallLine, r.summary.Verdict.Findings, r.summary.Gaps)
		}
	})
	t.Run("a termination wholly inside a cut watch cannot be told", func(t *testing.T) {
		t.Parallel()
		// preStop 5 s: on the resumed watches' stamps the window looks met.
		l, ns := deletedBehindProxy(t, env, func(p *e2e.CutProxy) { p.Cut(25 * time.Second) })
		pods := env.Client.CoreV1().Pods(ns)
		err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 20*time.Second, true, func(ctx context.Context) (bool, error) {
			_, err := pods.Get(ctx, "web-0", metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
		if err != nil {
			t.Fatalf("web-0 not gone while the watch was cut: %v", err)
		}
		r := l.wait()
		v := r.summary.Verdict
		if r.code != 2 || !v.CannotTell || !findingWith(v, "fell in a gap") || len(v.PartialStreams) == 0 {
			t.Errorf("exit %d cannotTell %v partial %v findings %v: want exit 2, cannot tell, naming what fell in the gap", r.code, v.CannotTell, v.PartialStreams, v.Findings)
		}
		if findingWith(v, "race window") || findingWith(v, "met)") || v.Window != "" {
			t.Errorf("window %q judged on the resumed watch's stamps: %v", v.Window, v.Findings)
		}
		if t.Failed() {
			t.Logf("stdout:\n%s", r.stdout)
		}
	})
}

// deletedBehindProxy starts `watch pod web-0 -o json` (preStop 5 s,
// another ready endpoint behind the Service) through a CutProxy, lets
// fault act on the proxy, then deletes web-0 directly, not through the
// proxy. It returns the running watch and the namespace.
func deletedBehindProxy(t *testing.T, env *e2e.Env, fault func(*e2e.CutProxy)) (*live, string) {
	t.Helper()
	ns, node := env.Namespace(t), env.Node(t)
	createServedPods(t, env, ns, node, podOpts{grace: 30, preStop: 5})
	proxy, kc := e2e.ProxyTo(t, env.Kubeconfig)
	l := startLive(t, kc, watchJSON(ns, "web-0")...)
	l.waitFor("waiting for pod", 30*time.Second)
	fault(proxy)
	if err := env.Client.CoreV1().Pods(ns).Delete(context.Background(), "web-0", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	return l, ns
}

// trafficEndsAt reports whether at ms the endpoint stopped serving or was
// removed, or (when replacement) another pod's endpoint turned ready.
func trafficEndsAt(r run, ms int64, replacement bool) bool {
	for _, e := range r.events {
		switch {
		case e.Ms == nil || *e.Ms != ms:
		case replacement && e.Kind == timeline.KindServiceEndpoints && e.OthersReady != nil && *e.OthersReady > 0,
			e.Kind == timeline.KindEndpointRemoved,
			e.Kind == timeline.KindEndpointChanged && e.Endpoint != nil && !e.Endpoint.Serving:
			return true
		}
	}
	return false
}

// A delete or eviction that is refused, or a watch that sees no
// termination, prints one line on stderr, exits 1 and gives no verdict.
func TestWatchPodNoVerdictE2E(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	noVerdict := func(t *testing.T, res e2e.Result, want string) {
		t.Helper()
		lines := strings.Split(strings.TrimSpace(res.Stderr), "\n")
		if res.ExitCode != 1 || len(lines) != 1 || !strings.Contains(lines[0], want) {
			t.Errorf("exit %d, stderr %q: want 1 and one line containing %q", res.ExitCode, res.Stderr, want)
		}
		for _, bad := range []string{"Verdict", "SAFE", "RISK", `"type":"summary"`, "axis starts at the delete request"} {
			if strings.Contains(res.Stdout, bad) {
				t.Errorf("stdout holds %q:\n%s", bad, res.Stdout)
			}
		}
	}
	stillThere := func(t *testing.T, ns, name string) {
		t.Helper()
		p, err := env.Client.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
		switch {
		case err != nil:
			t.Errorf("pod %s/%s: %v: want it untouched", ns, name, err)
		case p.DeletionTimestamp != nil:
			t.Errorf("pod %s/%s is terminating: want it untouched", ns, name)
		}
	}

	t.Run("least privilege: --as a ServiceAccount that may not delete or evict", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		pod := createPod(t, env, ns, node, "web-0", podOpts{grace: 10, preStop: 5})
		createService(t, env, ns, "web", nil, pod)
		restrictedKubeconfig(t, env, ns, []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"pods", "services", "events"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: []string{"get", "list", "watch"}}})
		as := "system:serviceaccount:" + ns + ":limited"
		del := env.Kubectl(t, "graceful", "watch", "pod", "web-0", "-n", ns, "--delete", "--as", as, "--timeout", "60s")
		noVerdict(t, del, "forbidden")
		ev := env.Kubectl(t, "graceful", "watch", "pod", "web-0", "-n", ns, "--evict", "-o", "json", "--as", as, "--timeout", "60s")
		noVerdict(t, ev, "forbidden")
		stillThere(t, ns, "web-0")
	})

	t.Run("a ValidatingAdmissionPolicy denies the DELETE and the eviction", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		pod := createPod(t, env, ns, node, "web-0", podOpts{grace: 10, preStop: 5})
		createService(t, env, ns, "web", nil, pod)
		denyPodDeletes(t, env, ns)
		res := env.Kubectl(t, "graceful", "watch", "pod", "web-0", "-n", ns, "--delete", "--timeout", "60s")
		noVerdict(t, res, "pods are protected in this namespace")
		res = env.Kubectl(t, "graceful", "watch", "pod", "web-0", "-n", ns, "--evict", "-o", "json", "--timeout", "60s")
		noVerdict(t, res, "pods are protected in this namespace")
		stillThere(t, ns, "web-0")
	})

	t.Run("a PodDisruptionBudget refuses the eviction until --timeout", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		pods := createDeployment(t, env, ns, node, "web", 1, podOpts{grace: 10, preStop: 5})
		createService(t, env, ns, "web", nil, &pods[0])
		createPDB(t, env, ns, 1)
		res := env.Kubectl(t, "graceful", "watch", "pod", pods[0].Name, "-n", ns, "--evict", "--timeout", "6s")
		noVerdict(t, res, "refused until --timeout 6s ran out (last answer: Eviction refused (429): The disruption budget web-pdb needs 1 healthy pods")
		stillThere(t, ns, pods[0].Name)
	})

	t.Run("nobody deletes the pod before --timeout", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		createPod(t, env, ns, node, "web-0", podOpts{grace: 10})
		res := env.Kubectl(t, "graceful", "watch", "pod", "web-0", "-n", ns, "--timeout", "3s")
		noVerdict(t, res, "nobody deleted pod "+ns+"/web-0 before --timeout 3s ran out: no termination to judge, no verdict")
	})
}

// denyPodDeletes installs a ValidatingAdmissionPolicy and its binding that
// deny every DELETE of a pod in ns and every eviction, and waits until the API server
// enforces it (a server-side dry-run delete is denied).
func denyPodDeletes(t *testing.T, env *e2e.Env, ns string) {
	t.Helper()
	ctx := context.Background()
	c := env.Client.AdmissionregistrationV1()
	name := "deny-pod-delete-" + ns
	failurePolicy := admissionv1.Fail
	policy := &admissionv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: admissionv1.ValidatingAdmissionPolicySpec{
		FailurePolicy: &failurePolicy,
		MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{
			{RuleWithOperations: admissionv1.RuleWithOperations{Operations: []admissionv1.OperationType{admissionv1.Delete},
				Rule: admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}},
			{RuleWithOperations: admissionv1.RuleWithOperations{Operations: []admissionv1.OperationType{admissionv1.Create},
				Rule: admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods/eviction"}}}}}},
		Validations: []admissionv1.Validation{{Expression: "false", Message: "pods are protected in this namespace"}},
	}}
	if _, err := c.ValidatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.ValidatingAdmissionPolicies().Delete(context.Background(), name, metav1.DeleteOptions{}) })
	binding := &admissionv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{
		PolicyName: name, ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny},
		MatchResources: &admissionv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{
			MatchLabels: map[string]string{corev1.LabelMetadataName: ns}}},
	}}
	if _, err := c.ValidatingAdmissionPolicyBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.ValidatingAdmissionPolicyBindings().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		err := env.Client.CoreV1().Pods(ns).Delete(ctx, "web-0", metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}})
		return err != nil && strings.Contains(err.Error(), "pods are protected"), nil
	})
	if err != nil {
		t.Fatalf("the ValidatingAdmissionPolicy was never enforced: %v", err)
	}
}
