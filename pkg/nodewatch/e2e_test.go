package nodewatch_test

import (
	"bufio"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/rand"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timeline/render"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/nodewatch"
)

// pool makes n fresh kwok nodes that carry one pool label, and returns
// the label selector and the node names.
func pool(t *testing.T, env *e2e.Env, n int) (string, []string) {
	t.Helper()
	key, val := "e2e.graceful.test/pool", rand.String(6)
	var nodes []string
	for i := 0; i < n; i++ {
		name := env.Node(t)
		patch := []byte(`{"metadata":{"labels":{"` + key + `":"` + val + `"}}}`)
		if _, err := env.Client.CoreV1().Nodes().Patch(context.Background(), name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, name)
	}
	return key + "=" + val, nodes
}

// spare makes a kwok node outside the pool, cordoned until the workloads
// are placed, for the pods the drain evicts to be replaced on.
func spare(t *testing.T, env *e2e.Env) (name string, open func()) {
	t.Helper()
	name = env.Node(t)
	cordon := func(on bool) {
		patch := []byte(`{"spec":{"unschedulable":` + map[bool]string{true: "true", false: "false"}[on] + `}}`)
		if _, err := env.Client.CoreV1().Nodes().Patch(context.Background(), name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	cordon(true)
	return name, func() { cordon(false); env.WaitUntainted(t, name, corev1.TaintNodeUnschedulable) }
}

// served is a Deployment of replicas pods on the nodes behind a Service of
// its name, with a preStop sleep of preStop seconds (none for 0). Its pods
// tolerate and may run on these nodes only (no other test's).
func served(t *testing.T, env *e2e.Env, ns, name string, nodes []string, replicas int32, preStop int64) {
	t.Helper()
	ctx := context.Background()
	var tolerations []corev1.Toleration
	for _, n := range nodes {
		tolerations = append(tolerations, corev1.Toleration{Key: e2e.NodeTaintKey, Operator: corev1.TolerationOpEqual, Value: n, Effect: corev1.TaintEffectNoSchedule})
	}
	affinity := &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: e2e.NodeTaintKey, Operator: corev1.NodeSelectorOpIn, Values: nodes}}}}}}}
	labels := map[string]string{"app": name}
	c := corev1.Container{Name: "web", Image: "nginx", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 80}}}
	if preStop > 0 {
		c.Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: preStop}}}
	}
	grace := int64(30)
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: appsv1.DeploymentSpec{
		Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
			Affinity: affinity, Tolerations: tolerations,
			TerminationGracePeriodSeconds: &grace, Containers: []corev1.Container{c}}}}}
	if _, err := env.Client.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: corev1.ServiceSpec{
		Selector: labels, Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromString("http")}}}}
	if _, err := env.Client.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e2e.WaitFor(t, e2e.SetupWait, name+"'s pods ready in its EndpointSlice", func() bool {
		list, err := env.Client.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{LabelSelector: "kubernetes.io/service-name=" + name})
		ready := int32(0)
		for _, s := range list.Items {
			for _, ep := range s.Endpoints {
				if ep.Conditions.Ready != nil && *ep.Conditions.Ready {
					ready++
				}
			}
		}
		return err == nil && ready == replicas
	})
}

func budget(t *testing.T, env *e2e.Env, ns, app string, maxUnavailable int) {
	t.Helper()
	mu := intstr.FromInt32(int32(maxUnavailable))
	p := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: app, Namespace: ns}, Spec: policyv1.PodDisruptionBudgetSpec{
		MaxUnavailable: &mu, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}}}
	if _, err := env.Client.PolicyV1().PodDisruptionBudgets(ns).Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e2e.WaitFor(t, e2e.SetupWait, "budget "+app+" observed", func() bool {
		got, err := env.Client.PolicyV1().PodDisruptionBudgets(ns).Get(context.Background(), app, metav1.GetOptions{})
		return err == nil && got.Status.ObservedGeneration == got.Generation && got.Status.ExpectedPods > 0
	})
}

// summary parses the last line of `watch node -o json`.
func summary(t *testing.T, res e2e.Result) render.NodeJSONSummary {
	t.Helper()
	var last string
	sc := bufio.NewScanner(strings.NewReader(res.Stdout))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		last = sc.Text()
	}
	var s render.NodeJSONSummary
	if err := json.Unmarshal([]byte(last), &s); err != nil || s.Type != "summary" {
		t.Fatalf("no summary line (%v) in:\n%s\nstderr:\n%s", err, res.Stdout, res.Stderr)
	}
	return s
}

func workload(t *testing.T, s render.NodeJSONSummary, name string) (raced, terminated int, risk bool) {
	t.Helper()
	w := workloadResult(t, s, name)
	// A pod without preStop races or, where the API cannot tell the
	// order, has a window too short: both count here.
	return w.Verdict.Raced + w.Verdict.WindowTooShort, w.Verdict.Terminated, w.Risk
}

func workloadResult(t *testing.T, s render.NodeJSONSummary, name string) nodewatch.WorkloadResult {
	t.Helper()
	for _, w := range s.Verdict.Workloads {
		if w.Workload.Name == name {
			return w
		}
	}
	t.Fatalf("workload %s not in the summary: %+v", name, s.Verdict.Workloads)
	return nodewatch.WorkloadResult{}
}

// setReady sets the Ready condition of every pod of app, as a failing
// (false) or recovered (true) readiness probe would: kwok leaves a
// running pod's conditions alone.
func setReady(t *testing.T, env *e2e.Env, ns, app string, ready bool) {
	t.Helper()
	ctx := context.Background()
	pods, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=" + app})
	if err != nil {
		t.Fatal(err)
	}
	status := map[bool]string{true: "True", false: "False"}[ready]
	patch := []byte(`{"status":{"conditions":[{"type":"Ready","status":"` + status + `"},{"type":"ContainersReady","status":"` + status + `"}]}}`)
	for _, p := range pods.Items {
		if _, err := env.Client.CoreV1().Pods(ns).Patch(ctx, p.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
			t.Fatal(err)
		}
	}
}

// blockedBudget places "blocked": two pods on the pool, both turned
// unready, under a budget of maxUnavailable 1: its currentHealthy (0) is
// below its desiredHealthy (1), and under IfHealthyBudget the API refuses
// every eviction of it (429) until its pods recover (setReady true):
// then one at a time, each once the last one's replacement is ready.
func blockedBudget(t *testing.T, env *e2e.Env, ns string, nodes []string) {
	t.Helper()
	served(t, env, ns, "blocked", nodes, 2, 0)
	budget(t, env, ns, "blocked", 1)
	setReady(t, env, ns, "blocked", false)
	e2e.WaitFor(t, e2e.SetupWait, "budget blocked below its desiredHealthy", func() bool {
		got, err := env.Client.PolicyV1().PodDisruptionBudgets(ns).Get(context.Background(), "blocked", metav1.GetOptions{})
		return err == nil && got.Status.CurrentHealthy == 0 && got.Status.DesiredHealthy == 1
	})
}

// naiveAndHardened places two Deployments on a pool of two nodes: naive
// (no preStop) and hardened (a 6 s preStop, a budget of maxUnavailable 1),
// with a spare node outside the pool for their replacements; with
// blocked, a third whose budget blocks until a pod recovers
// (blockedBudget).
func naiveAndHardened(t *testing.T, env *e2e.Env, blocked bool) (ns, sel string, nodes []string) {
	t.Helper()
	ns = env.Namespace(t)
	sel, nodes = pool(t, env, 2)
	extra, open := spare(t, env)
	served(t, env, ns, "naive", append(nodes, extra), 2, 0)
	served(t, env, ns, "hardened", append(nodes, extra), 2, 6)
	budget(t, env, ns, "hardened", 1)
	if blocked {
		blockedBudget(t, env, ns, append(nodes, extra))
	}
	open()
	return ns, sel, nodes
}

// TestWatchNodeFollowsKubectlDrain: kubectl drain empties a pool of two
// nodes while `watch node -l` follows it; the naive workload (no preStop)
// is named as racing, the hardened one (a preStop delay longer than the
// default --propagation of 5 s, a budget) is not; the blocked one (its
// budget below desiredHealthy until a pod recovers, 4 s after the first
// deletion) shows its time below desiredHealthy from the budget's status,
// the hardened one none.
func TestWatchNodeFollowsKubectlDrain(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	ns, sel, nodes := naiveAndHardened(t, env, true)

	w := env.StartKubectl(t, 3*time.Minute, "graceful", "watch", "node", "-l", sel, "-o", "json", "--settle", "1s", "--timeout", "150s")
	w.WaitOutput(t, time.Minute, `"type":"capacity"`)
	drain := env.StartKubectl(t, 2*time.Minute, "drain", "-l", sel, "--ignore-daemonsets", "--timeout", "100s")
	w.WaitOutput(t, time.Minute, `"kind":"deletion-seen"`)
	time.Sleep(4 * time.Second)
	setReady(t, env, ns, "blocked", true)
	if d := drain.Wait(); d.ExitCode != 0 {
		t.Fatalf("kubectl drain: exit %d\n%s\n%s", d.ExitCode, d.Stdout, d.Stderr)
	}
	res := w.Wait()
	s := summary(t, res)
	if res.ExitCode != 2 || !s.Verdict.Risk || s.Verdict.Ended != "empty" || len(s.Verdict.Remaining) != 0 {
		t.Fatalf("exit %d, verdict %+v: want exit 2, a risk, the nodes empty", res.ExitCode, s.Verdict)
	}
	if len(s.Nodes) != len(nodes) {
		t.Errorf("followed nodes %v, want %v", s.Nodes, nodes)
	}
	if raced, n, risk := workload(t, s, "naive"); raced == 0 || n != 2 || !risk {
		t.Errorf("naive: %d of %d raced, risk %v; want a race among its 2 pods", raced, n, risk)
	}
	if raced, n, risk := workload(t, s, "hardened"); raced != 0 || n != 2 || risk {
		t.Errorf("hardened: %d of %d raced, risk %v; want 2 pods and no risk", raced, n, risk)
	}
	if !strings.Contains(strings.Join(s.Verdict.Findings, "\n"), ns+"/Deployment/naive (") {
		t.Errorf("findings %q do not name the naive workload", s.Verdict.Findings)
	}
	if b := workloadResult(t, s, "blocked").Budgets; len(b) != 1 || b[0].BelowMs == nil || *b[0].BelowMs < 3000 || b[0].MinCurrentHealthy != 0 || b[0].MinDesiredHealthy != 1 {
		t.Errorf("blocked's budget %+v: want at least 3 s below desiredHealthy, fewest currentHealthy 0 of 1", b)
	}
	if b := workloadResult(t, s, "hardened").Budgets; len(b) != 1 || b[0].BelowMs == nil || *b[0].BelowMs != 0 || b[0].Unknown != "" {
		t.Errorf("hardened's budget %+v: want 0 ms below desiredHealthy, observed throughout", b)
	}
}

// TestWatchNodeEmptyNodeEndsAtOnce: a node without evictable pods has
// nothing to watch: the command says so and ends, exit 0.
func TestWatchNodeEmptyNodeEndsAtOnce(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	node := env.Node(t)
	start := time.Now()
	// --settle is for late news of a termination: with none, it is not waited.
	res := env.Kubectl(t, "graceful", "watch", "node", node, "--settle", "30s")
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "NO DRAIN SEEN") || !strings.Contains(res.Stdout, "no evictable pod was on the nodes: nothing to watch") {
		t.Fatalf("exit %d:\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %s for an empty node: it waited for --settle", d)
	}
}

// onePodNode places one pod of app, with a preStop of preStop seconds,
// behind a Service on a node of its own.
func onePodNode(t *testing.T, app string, preStop int64) (env *e2e.Env, ns, node string) {
	t.Helper()
	env = e2e.Cluster(t)
	ns = env.Namespace(t)
	_, nodes := pool(t, env, 1)
	served(t, env, ns, app, nodes, 1, preStop)
	return env, ns, nodes[0]
}

// TestWatchNodeTimeoutWithoutADrain: nobody drains a node with a pod
// before --timeout: no drain was seen, exit 0, and the pod is counted,
// not named in a risk.
func TestWatchNodeTimeoutWithoutADrain(t *testing.T) {
	t.Parallel()
	env, _, node := onePodNode(t, "idle", 0)
	res := env.Kubectl(t, "graceful", "watch", "node", node, "--timeout", "3s")
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "NO DRAIN SEEN") || strings.Contains(res.Stdout, "RISK") ||
		!strings.Contains(res.Stdout, "the watch reached --timeout before any pod on the nodes was deleted: no drain seen (1 evictable pod(s) on the nodes)") {
		t.Fatalf("exit %d, want 0 and no drain seen:\n%s\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
}

// TestWatchNodeInterruptedMidTermination: Ctrl-C while a pod is in its
// preStop: the verdict names the pod still on the node and cannot tell.
func TestWatchNodeInterruptedMidTermination(t *testing.T) {
	t.Parallel()
	env, ns, node := onePodNode(t, "slow", 20)
	nodes := []string{node}
	w := env.StartKubectl(t, 2*time.Minute, "graceful", "watch", "node", node, "--settle", "1s")
	w.WaitOutput(t, time.Minute, "capacity")
	pods, err := env.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "app=slow"})
	if err != nil || len(pods.Items) != 1 {
		t.Fatalf("pods: %v %v", err, pods)
	}
	// Cordoned, as a drain does: the replacement goes nowhere.
	if _, err := env.Client.CoreV1().Nodes().Patch(context.Background(), nodes[0], types.MergePatchType, []byte(`{"spec":{"unschedulable":true}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.CoreV1().Pods(ns).Delete(context.Background(), pods.Items[0].Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	w.WaitOutput(t, time.Minute, "Killing")
	w.Interrupt()
	res := w.Wait()
	want := "was interrupted with 1 evictable pod(s) still on the nodes ("
	terminating := "still terminating: 1 (" + ns + "/" + pods.Items[0].Name + "), not deleted yet: 0 (none)"
	if res.ExitCode != 2 || !strings.Contains(res.Stdout, want) || !strings.Contains(res.Stdout, "cannot tell") || !strings.Contains(res.Stdout, terminating) {
		t.Fatalf("exit %d, want 2, %q and %q:\n%s\n%s", res.ExitCode, want, terminating, res.Stdout, res.Stderr)
	}
}

// TestWatchNodeDeletedMidWatch: a node deleted while watched is said and
// no longer waited for.
func TestWatchNodeDeletedMidWatch(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	ns := env.Namespace(t)
	_, nodes := pool(t, env, 1)
	served(t, env, ns, "gone", nodes, 1, 0)
	w := env.StartKubectl(t, 2*time.Minute, "graceful", "watch", "node", nodes[0], "--settle", "1s", "-o", "json")
	w.WaitOutput(t, time.Minute, `"type":"capacity"`)
	if err := env.Client.CoreV1().Nodes().Delete(context.Background(), nodes[0], metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	res := w.Wait()
	s := summary(t, res)
	if s.Verdict.Ended != "nodes-deleted" || len(s.Deleted) != 1 || !strings.Contains(strings.Join(s.Notes, "\n"), "node "+nodes[0]+" was deleted") {
		t.Fatalf("exit %d, summary %+v", res.ExitCode, s)
	}
}

// TestWatchNodeBadInput: one line, exit 1, before anything is watched.
func TestWatchNodeBadInput(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	node := env.Node(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-l", "e2e.graceful.test/pool=none-" + rand.String(5)}, `no node matches -l "e2e.graceful.test/pool=none-`},
		{[]string{node, node}, "is named twice"},
		{[]string{"no-such-node-x"}, `node "no-such-node-x" not found`},
		{[]string{node, "-o", "yml"}, `is not supported for watch node: use json, yaml, mermaid, or leave it out; did you mean "yaml"?`},
		{[]string{}, "name the nodes or select them with -l: kubectl graceful watch node"},
	} {
		res := env.Kubectl(t, append([]string{"graceful", "watch", "node"}, c.args...)...)
		lines := strings.Split(strings.TrimSpace(res.Stderr), "\n")
		if res.ExitCode != 1 || len(lines) != 1 || !strings.Contains(lines[0], c.want) || res.Stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 1 and one line with %q", c.args, res.ExitCode, res.Stdout, res.Stderr, c.want)
		}
	}
}

// TestDrainWatchJudgesItsOwnEvictions: drain node --watch drains a pool
// and judges the terminations it caused: the drain's outcome first, then
// exit 2 for the naive workload's race.
func TestDrainWatchJudgesItsOwnEvictions(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	ns, sel, _ := naiveAndHardened(t, env, false)
	res := env.Kubectl(t, "graceful", "drain", "node", "-l", sel, "--ignore-daemonsets", "--watch", "--timeout", "100s")
	out := res.Stdout
	if res.ExitCode != 2 || !strings.Contains(out, "Pool summary: 2 node(s), 2 drained") {
		t.Fatalf("exit %d, want 2 after a drain that succeeded:\n%s\n%s", res.ExitCode, out, res.Stderr)
	}
	verdict := out[strings.Index(out, "Drain verdict for"):]
	if !strings.Contains(verdict, "RISK") || !strings.Contains(verdict, ns+"/Deployment/naive (") || strings.Contains(verdict, ns+"/Deployment/hardened (") {
		t.Errorf("verdict names naive and not hardened:\n%s", verdict)
	}
	if !strings.Contains(out, "Killing") {
		t.Errorf("no kubelet line of the watch in:\n%s", out)
	}
}

// TestDrainWatchRefusesDryRun: --watch follows evictions; a dry run has
// none: one line, exit 1.
func TestDrainWatchRefusesDryRun(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	node := env.Node(t)
	res := env.Kubectl(t, "graceful", "drain", "node", node, "--watch", "--dry-run=client")
	if res.ExitCode != 1 || strings.Count(strings.TrimSpace(res.Stderr), "\n") != 0 || !strings.Contains(res.Stderr, "--dry-run evicts nothing") {
		t.Errorf("exit %d, stderr %q", res.ExitCode, res.Stderr)
	}
}
