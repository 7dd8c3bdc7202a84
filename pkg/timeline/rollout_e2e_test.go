package timeline_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timeline/render"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// workloadRun is a finished `watch TYPE/NAME -o json` run.
type workloadRun struct {
	stdout, stderr string
	code           int
	lines          []render.WorkloadJSONLine
	summary        render.WorkloadJSONSummary
}

func parseWorkloadRun(t *testing.T, r run) workloadRun {
	t.Helper()
	w := workloadRun{stdout: r.stdout, stderr: r.stderr, code: r.code}
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	sc.Buffer(make([]byte, 1<<20), 4<<20)
	for sc.Scan() {
		var probe struct{ Type string }
		if err := json.Unmarshal(sc.Bytes(), &probe); err != nil {
			t.Fatalf("-o json line is not JSON: %q", sc.Text())
		}
		if probe.Type == "summary" {
			if err := json.Unmarshal(sc.Bytes(), &w.summary); err != nil {
				t.Fatalf("summary: %v", err)
			}
			continue
		}
		var l render.WorkloadJSONLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line: %v", err)
		}
		w.lines = append(w.lines, l)
	}
	if w.summary.Type != "summary" {
		t.Fatalf("no summary line (exit %d):\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	return w
}

// runWorkload runs `kubectl graceful ARGS` to its end, through kubectl.
func runWorkload(t *testing.T, kubeconfig string, args ...string) workloadRun {
	t.Helper()
	return parseWorkloadRun(t, start(t, kubeconfig, args...)())
}

func (w workloadRun) verdict() rollout.Verdict { return w.summary.Verdict }

func (w workloadRun) finding(t *testing.T, sub string) {
	t.Helper()
	for _, f := range w.summary.Verdict.Findings {
		if strings.Contains(f, sub) {
			return
		}
	}
	t.Errorf("no finding with %q in %q", sub, w.summary.Verdict.Findings)
}

// deploymentOpts shape a test Deployment beyond its pods.
type deploymentOpts struct {
	replicas                 int32
	maxSurge, maxUnavailable *intstr.IntOrString
}

// createRolloutDeployment creates a Deployment of simulated pods on node,
// with a Service "web" selecting them, and waits until the Service lists
// every replica as a ready endpoint.
func createRolloutDeployment(t *testing.T, env *e2e.Env, ns, node string, d deploymentOpts, o podOpts) {
	t.Helper()
	waitDefaultServiceAccount(t, env, ns)
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: appsv1.DeploymentSpec{
		Replicas: &d.replicas,
		Selector: &metav1.LabelSelector{MatchLabels: labelsOf(o)},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labelsOf(o), Annotations: annotations(o)}, Spec: podSpec(node, o)},
	}}
	if d.maxSurge != nil || d.maxUnavailable != nil {
		dep.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: d.maxSurge, MaxUnavailable: d.maxUnavailable}}
	}
	if _, err := env.Client.AppsV1().Deployments(ns).Create(context.Background(), dep, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating deployment: %v", err)
	}
	waitReadyPods(t, env, ns, int(d.replicas))
	createService(t, env, ns, "web", nil, nil)
	waitReadyEndpoints(t, env, ns, "web", int(d.replicas))
}

// waitReadyEndpoints waits until the Service's slices list n ready endpoints.
func waitReadyEndpoints(t *testing.T, env *e2e.Env, ns, service string, n int) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		l, err := env.Client.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + service})
		if err != nil {
			return false, nil
		}
		ready := 0
		for _, s := range l.Items {
			for _, ep := range s.Endpoints {
				if ep.Conditions.Ready == nil || *ep.Conditions.Ready {
					ready++
				}
			}
		}
		return ready == n, nil
	})
	if err != nil {
		t.Fatalf("Service %s never had %d ready endpoints: %v", service, n, err)
	}
}

func intOrStr(s string) *intstr.IntOrString { v := intstr.Parse(s); return &v }

func watchArgs(ns, target string, extra ...string) []string {
	return append([]string{"watch", target, "-n", ns, "-o", "json", "--settle", "2s", "--timeout", "150s"}, extra...)
}

// The scenarios of the rollout watch, each on the local cluster through the
// real kubectl, asserting per-pod verdicts, the capacity minimum and the exit
// code.
func TestWatchWorkloadE2E(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	ctx := context.Background()

	t.Run("1 naive Deployment restarted: every pod races or stops too soon", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		createRolloutDeployment(t, env, ns, node, deploymentOpts{replicas: 4}, podOpts{grace: 30})
		w := runWorkload(t, env.Kubeconfig, watchArgs(ns, "deployment/web", "--restart")...)
		v := w.verdict()
		// Without preStop each pod is told to stop within ms of its
		// endpoint leaving: a race (surely before: a negative window), or
		// a window too short where the API cannot tell the order; never
		// both.
		if w.code != 2 || v.Terminated != 4 || v.Raced+v.WindowTooShort != 4 || !v.Complete {
			t.Fatalf("exit %d, %d terminated, %d raced, %d too short, complete %v; findings %q; stderr %s", w.code, v.Terminated, v.Raced, v.WindowTooShort, v.Complete, v.Findings, w.stderr)
		}
		for _, p := range v.Pods {
			if p.Verdict.WindowMs == nil || p.Raced == p.WindowTooShort || !p.Verdict.Risk || p.Verdict.PreStopDelayMs != 0 || p.Raced && *p.Verdict.WindowMs >= 0 {
				t.Errorf("pod %s: raced %v, too short %v, window %d ms: %+v, want a race (a negative window) or a window too short, without preStop", p.Pod, p.Raced, p.WindowTooShort, *p.Verdict.WindowMs, p.Verdict.Findings)
			}
		}
		if w.summary.T0Source != timeline.T0RestartSent || len(v.Capacity) != 1 || v.Capacity[0].Desired != 4 {
			t.Errorf("t0 %q capacity %+v", w.summary.T0Source, v.Capacity)
		}
		d, err := env.Client.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
		if err != nil || d.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"] == "" {
			t.Errorf("the restart did not set kubectl's restartedAt annotation: %v", err)
		}
		if v.Raced > 0 {
			w.finding(t, fmt.Sprintf("%d of 4 terminated pod(s) raced their endpoints", v.Raced))
		}
		if v.WindowTooShort > 0 {
			w.finding(t, fmt.Sprintf("%d of 4 terminated pod(s) had a window too short", v.WindowTooShort))
		}
	})

	t.Run("2 hardened Deployment restarted: no race, capacity never below 4", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		createRolloutDeployment(t, env, ns, node, deploymentOpts{replicas: 4, maxSurge: intOrStr("1"), maxUnavailable: intOrStr("0")},
			podOpts{grace: 30, preStop: 5})
		w := runWorkload(t, env.Kubeconfig, watchArgs(ns, "deployment/web", "--restart")...)
		v := w.verdict()
		if w.code != 0 || v.Terminated != 4 || v.Raced != 0 || v.Killed != 0 || !v.Complete {
			t.Fatalf("exit %d, %d terminated, %d raced, %d killed; findings %q; stderr %s", w.code, v.Terminated, v.Raced, v.Killed, v.Findings, w.stderr)
		}
		for _, p := range v.Pods {
			if p.Verdict.WindowMs == nil || *p.Verdict.WindowMs < 3000 {
				t.Errorf("pod %s window %v, want about the 5 s preStop", p.Pod, p.Verdict.WindowMs)
			}
		}
		if c := v.Capacity[0]; c.MinReady < 4 || c.BelowDesiredMs != 0 {
			t.Errorf("capacity %+v: ready endpoints went below 4", c)
		}
		// Every pod always had 3 or more others ready: a line saying none
		// was claimed from slices not yet listed (the pods' List can come
		// first). Each line gives the count as watch pod's does.
		for _, l := range w.lines {
			if l.Kind != timeline.KindServiceEndpoints {
				continue
			}
			if strings.Contains(l.Message, "no ready endpoint") {
				t.Errorf("pod %s: %q (at %v ms, before the watch %v)", l.Pod, l.Message, l.Ms, l.Initial)
			}
			if l.OthersReady == nil || *l.OthersReady < 3 {
				t.Errorf("pod %s: %q has othersReady %v, want 3 or more", l.Pod, l.Message, l.OthersReady)
			}
		}
	})

	// maxUnavailable 50% lets the controller take 2 of 4 pods down at
	// once; whether the EndpointSlice ever shows 2 ready or a new pod is
	// Ready first (kwok readies it in milliseconds) is the machine's
	// timing: the drop is seen, never below 2.
	t.Run("3 maxUnavailable 50%: capacity drops, never below 2 of 4", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		createRolloutDeployment(t, env, ns, node, deploymentOpts{replicas: 4, maxSurge: intOrStr("0"), maxUnavailable: intOrStr("50%")},
			podOpts{grace: 30, preStop: 5})
		w := runWorkload(t, env.Kubeconfig, watchArgs(ns, "deploy", "web", "--restart")...)
		v := w.verdict()
		c := v.Capacity[0]
		if w.code != 0 || v.Terminated != 4 || c.MinReady < 2 || c.MinReady > 3 || c.MinDesired != 4 {
			t.Fatalf("exit %d, %d terminated, capacity %+v; findings %q", w.code, v.Terminated, c, v.Findings)
		}
		if c.BelowDesiredFromMs == nil || c.BelowDesiredMs <= 0 {
			t.Errorf("below desired %d ms from %v: want when and how long", c.BelowDesiredMs, c.BelowDesiredFromMs)
		}
		w.finding(t, fmt.Sprintf("Service web: fewest ready endpoints %d of 4 desired, first at +", c.MinReady))
		w.finding(t, "Service web: below the desired replicas for ")
	})

	t.Run("4 stuck rollout: new pods never Ready, exit 2 at --timeout", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		createRolloutDeployment(t, env, ns, node, deploymentOpts{replicas: 4, maxSurge: intOrStr("1"), maxUnavailable: intOrStr("0")},
			podOpts{grace: 30, preStop: 2})
		l := startLive(t, env.Kubeconfig, "watch", "deployment/web", "-n", ns, "-o", "json", "--settle", "1s", "--timeout", "40s")
		l.waitFor("waiting for a rollout", 30*time.Second)
		patch := `{"spec":{"template":{"metadata":{"annotations":{"sim.graceful.test/ready":"false"}}}}}`
		if _, err := env.Client.AppsV1().Deployments(ns).Patch(ctx, "web", types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		w := parseWorkloadRun(t, l.wait())
		v := w.verdict()
		if w.code != 2 || v.Complete || v.Ended != "timeout" || len(v.NeverReady) != 1 || v.Terminated != 0 {
			t.Fatalf("exit %d, ended %q, never ready %v, %d terminated; findings %q", w.code, v.Ended, v.NeverReady, v.Terminated, v.Findings)
		}
		if c := v.Capacity[0]; c.EndReady != 4 || c.MinReady != 4 {
			t.Errorf("capacity %+v: the old pods should still serve", c)
		}
		w.finding(t, "never Ready while watched: "+v.NeverReady[0])
		w.finding(t, "did not complete before --timeout")
	})

	t.Run("4b stuck rollout past its progress deadline: stalled, exit 2", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		createRolloutDeployment(t, env, ns, node, deploymentOpts{replicas: 2, maxSurge: intOrStr("1"), maxUnavailable: intOrStr("0")},
			podOpts{grace: 30, preStop: 2})
		patch := `{"spec":{"progressDeadlineSeconds":5,"template":{"metadata":{"annotations":{"sim.graceful.test/ready":"false"}}}}}`
		l := startLive(t, env.Kubeconfig, "watch", "deployment/web", "-n", ns, "-o", "json", "--settle", "1s", "--timeout", "120s")
		l.waitFor("waiting for a rollout", 30*time.Second)
		if _, err := env.Client.AppsV1().Deployments(ns).Patch(ctx, "web", types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		w := parseWorkloadRun(t, l.wait())
		v := w.verdict()
		if w.code != 2 || v.Ended != "stalled" || len(v.NeverReady) != 1 {
			t.Fatalf("exit %d, ended %q, never ready %v; findings %q", w.code, v.Ended, v.NeverReady, v.Findings)
		}
		w.finding(t, "rollout stalled: deployment \"web\" exceeded its progress deadline")
		w.finding(t, "never Ready while watched: "+v.NeverReady[0])
	})

	t.Run("7 a drain of a node holding 2 of the pods, beside the watch", func(t *testing.T) {
		t.Parallel()
		ns, nodeA, nodeB := env.Namespace(t), env.Node(t), env.Node(t)
		createSpreadDeployment(t, env, ns, []string{nodeA, nodeB}, 4, podOpts{grace: 30, preStop: 6})
		onA := podsOn(t, env, ns, nodeA)
		if len(onA) != 2 {
			t.Fatalf("pods on %s: %v, want 2 of 4", nodeA, onA)
		}
		l := startLive(t, env.Kubeconfig, watchArgs(ns, "deployment/web")...)
		l.waitFor("waiting for a rollout", 30*time.Second)
		res := env.Kubectl(t, "graceful", "drain", "node", nodeA, "--ignore-daemonsets", "--timeout", "90s")
		if res.ExitCode != 0 {
			t.Fatalf("drain exit %d: %s\n%s", res.ExitCode, res.Stdout, res.Stderr)
		}
		w := parseWorkloadRun(t, l.wait())
		v := w.verdict()
		var followed []string
		for _, p := range v.Pods {
			followed = append(followed, p.Pod)
		}
		slices.Sort(followed)
		if w.code != 0 || !slices.Equal(followed, onA) || !v.Complete {
			t.Errorf("exit %d, followed %v, want the drained node's %v; findings %q", w.code, followed, onA, v.Findings)
		}
		for _, p := range v.Pods {
			if !p.Verdict.BehindService || p.Verdict.WindowMs == nil || p.Raced {
				t.Errorf("pod %s verdict %q", p.Pod, p.Verdict.Findings)
			}
		}
	})

	t.Run("5 scale-down 4 to 1 by someone else: 3 terminations followed", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		createRolloutDeployment(t, env, ns, node, deploymentOpts{replicas: 4}, podOpts{grace: 30, preStop: 6})
		l := startLive(t, env.Kubeconfig, watchArgs(ns, "deployment/web")...)
		l.waitFor("waiting for a rollout", 30*time.Second)
		scale(t, env, ns, "web", 1)
		w := parseWorkloadRun(t, l.wait())
		v := w.verdict()
		if w.code != 0 || v.Terminated != 3 || v.Raced != 0 || !v.Complete {
			t.Fatalf("exit %d, %d terminated, %d raced; findings %q; stderr %s", w.code, v.Terminated, v.Raced, v.Findings, w.stderr)
		}
		if c := v.Capacity[0]; c.Desired != 1 || c.EndReady != 1 || c.BelowDesiredMs != 0 {
			t.Errorf("capacity %+v: want 1 of 1 at the end, never below desired", c)
		}
	})

	t.Run("6 StatefulSet rolling update: one pod at a time, highest ordinal first", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		createStatefulSet(t, env, ns, node, 3, podOpts{grace: 30, preStop: 6})
		w := runWorkload(t, env.Kubeconfig, watchArgs(ns, "statefulset/web", "--restart")...)
		v := w.verdict()
		if w.code != 0 || v.Terminated != 3 || !v.Complete {
			t.Fatalf("exit %d, %d terminated, complete %v; findings %q; stderr %s", w.code, v.Terminated, v.Complete, v.Findings, w.stderr)
		}
		var order []string
		for _, p := range v.Pods {
			order = append(order, p.Pod)
		}
		if strings.Join(order, ",") != "web-2,web-1,web-0" {
			t.Errorf("deletion order %v, want web-2,web-1,web-0", order)
		}
		// The deletion and the removal come on two watches; their lines'
		// times may cross by a few ms on a loaded machine (CI saw 1 ms),
		// while a controller that did not wait would delete seconds early.
		const streamSkewMs = 100
		for i := 1; i < len(v.Pods); i++ {
			gone := w.goneMs(t, v.Pods[i-1].Pod)
			if v.Pods[i].DeletedMs+streamSkewMs < gone {
				t.Errorf("%s deleted at +%d ms, before %s was gone at +%d ms", v.Pods[i].Pod, v.Pods[i].DeletedMs, v.Pods[i-1].Pod, gone)
			}
		}
	})

	t.Run("DaemonSet restarted: its pod followed, capacity to 0 of 1 said", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		waitDefaultServiceAccount(t, env, ns)
		o := podOpts{grace: 10, preStop: 1}
		spec := podSpec("", o)
		spec.Tolerations = []corev1.Toleration{e2e.NodeToleration}
		spec.NodeSelector = map[string]string{e2e.NodeTaintKey: node}
		ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labelsOf(o)},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labelsOf(o)}, Spec: spec}}}
		if _, err := env.Client.AppsV1().DaemonSets(ns).Create(ctx, ds, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitReadyPods(t, env, ns, 1)
		createService(t, env, ns, "web", nil, nil)
		waitReadyEndpoints(t, env, ns, "web", 1)
		w := runWorkload(t, env.Kubeconfig, watchArgs(ns, "ds/web", "--restart")...)
		v := w.verdict()
		// Its only pod is the Service's last ready endpoint: kube-proxy
		// keeps routing to it while it terminates, so the restart is a race.
		if w.code != 2 || v.Terminated != 1 || v.Raced+v.WindowTooShort != 1 || !v.Complete || v.Capacity[0].Desired != 1 || v.Capacity[0].MinReady != 0 {
			t.Fatalf("exit %d, %d terminated, complete %v, capacity %+v; findings %q; stderr %s", w.code, v.Terminated, v.Complete, v.Capacity, v.Findings, w.stderr)
		}
		w.finding(t, "Service web: fewest ready endpoints 0 of 1 desired")
	})

	t.Run("8 watch connection cut mid-rollout: gap marked, rollout summarised, cannot tell", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		createRolloutDeployment(t, env, ns, node, deploymentOpts{replicas: 2, maxSurge: intOrStr("1"), maxUnavailable: intOrStr("0")},
			podOpts{grace: 30, preStop: 5})
		proxy, kc := e2e.ProxyTo(t, env.Kubeconfig)
		l := startLive(t, kc, watchArgs(ns, "deployment/web", "--restart")...)
		l.waitFor(`"kind":"deletion-seen"`, 60*time.Second)
		// Longer than the first pod's 5 s preStop: its SIGTERM and exit
		// fall inside the cut whenever the test reads the line. A 2 s cut
		// could end before any change of the pod's streams, and a gap
		// that hid nothing rightly leaves the verdict SAFE.
		proxy.Cut(7 * time.Second)
		w := parseWorkloadRun(t, l.wait())
		v := w.verdict()
		if len(w.summary.Gaps) == 0 {
			t.Fatalf("no gap marked after the cut:\n%s", w.stdout)
		}
		for _, g := range w.summary.Gaps {
			if g.FromMs == nil || g.ToMs == nil {
				t.Errorf("gap %+v not closed", g)
			}
		}
		// A cut while the pods' races were decided leaves their timelines
		// partial: "cannot be judged", a risk (exit 2), never SAFE.
		if v.Terminated != 2 || !v.Complete || w.code != 2 {
			t.Errorf("exit %d, %d terminated, complete %v; findings %q", w.code, v.Terminated, v.Complete, v.Findings)
		}
		w.finding(t, "(gaps marked above)")
		// Which pod's race the cut covers depends on when the test reads
		// the line: one cut while it was decided "cannot be judged", one
		// deleted inside the cut is judged on changes stamped late ("the
		// order cannot be told"). Either way a risk is named, never SAFE.
		if !slices.ContainsFunc(v.Findings, func(f string) bool {
			return strings.Contains(f, "cannot be judged: a watch was cut or stalled while their race was decided") ||
				strings.Contains(f, "other pod(s) at risk")
		}) {
			t.Errorf("no finding names the pods the cut left at risk: %q", v.Findings)
		}
	})

	t.Run("mermaid: one section per terminated pod", func(t *testing.T) {
		t.Parallel()
		ns, node := env.Namespace(t), env.Node(t)
		createRolloutDeployment(t, env, ns, node, deploymentOpts{replicas: 2}, podOpts{grace: 30})
		stdout, stderr, code := kubectl(t, env, "watch", "deployment", "web", "-n", ns, "--restart", "-o", "mermaid", "--settle", "1s", "--timeout", "120s")
		if code != 2 || !strings.HasPrefix(stdout, "gantt\n") || strings.Count(stdout, "    section web-") != 2 || !strings.Contains(stdout, ":crit,") {
			t.Errorf("exit %d, mermaid:\n%s", code, stdout)
		}
		if !strings.Contains(stderr, "Rollout verdict for deployment/web in "+ns+": RISK") {
			t.Errorf("no verdict on stderr:\n%s", stderr)
		}
	})

	t.Run("bad input: one line, exit 1, nothing sent", func(t *testing.T) {
		t.Parallel()
		ns := env.Namespace(t)
		waitDefaultServiceAccount(t, env, ns)
		zero := int32(0)
		dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "empty"}, Spec: appsv1.DeploymentSpec{Replicas: &zero,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "empty"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "empty"}}, Spec: podSpec("", podOpts{grace: 5})}}}
		if _, err := env.Client.AppsV1().Deployments(ns).Create(ctx, dep, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := env.Client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cfg"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"deployment/nope", "--restart"}, `error: deployment "nope" not found in namespace "` + ns + `"`},
			{[]string{"configmap/cfg", "--restart"}, "error: ConfigMap has no pod template with a rollout to follow"},
			{[]string{"deployment/empty", "--restart"}, "error: deployment/empty selects no pods (selector app=empty)"},
			{[]string{"daemonset/x", "--scale", "2"}, "error: daemonset/x has no scale subresource"},
			{[]string{"nosuchkind/x"}, `error: the server doesn't have a resource type "nosuchkind"`},
			// kubectl's RESOURCE.VERSION.GROUP form resolves (and gets as far as the pods).
			{[]string{"deployment.v1.apps/empty", "--restart"}, "error: deployment/empty selects no pods (selector app=empty)"},
			{[]string{"node/n1"}, "error: to follow a node's drain use: kubectl graceful watch node n1"},
			{[]string{"deployment/empty", "extra"}, `error: "deployment/empty" is already TYPE/NAME: name one workload, as TYPE/NAME or TYPE NAME`},
		} {
			stdout, stderr, code := kubectl(t, env, append([]string{"watch", "-n", ns}, c.args...)...)
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if code != 1 || len(lines) != 1 || !strings.HasPrefix(lines[0], c.want) {
				t.Errorf("%v: exit %d, stderr %q (stdout %q): want 1 and one line %q", c.args, code, stderr, stdout, c.want)
			}
		}
		d, err := env.Client.AppsV1().Deployments(ns).Get(ctx, "empty", metav1.GetOptions{})
		if err != nil || d.Generation != 1 {
			t.Errorf("deployment/empty was changed (generation %d): %v", d.Generation, err)
		}
	})
}

// RBAC without list and watch on pods: one line, exit 1, and no restart sent.
func TestWatchWorkloadE2EForbiddenPods(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	ns, node := env.Namespace(t), env.Node(t)
	createRolloutDeployment(t, env, ns, node, deploymentOpts{replicas: 1}, podOpts{grace: 10})
	kc := restrictedKubeconfig(t, env, ns, []rbacv1.PolicyRule{
		{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"get", "list", "watch", "patch"}},
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}},
	})
	res := e2e.RunKubectl(t, []string{"KUBECONFIG=" + kc}, "graceful", "watch", "deployment/web", "-n", ns, "--restart", "--timeout", "60s")
	lines := strings.Split(strings.TrimSpace(res.Stderr), "\n")
	if res.ExitCode != 1 || len(lines) != 1 || !strings.Contains(lines[0], "cannot list pods in namespace "+ns) {
		t.Errorf("exit %d stderr %q", res.ExitCode, res.Stderr)
	}
	d, err := env.Client.AppsV1().Deployments(ns).Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil || d.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"] != "" {
		t.Errorf("a restart was sent without permission to watch: %v", err)
	}
}

// goneMs returns when pod's object was seen deleted, in ms since the
// rollout's start.
func (w workloadRun) goneMs(t *testing.T, pod string) int64 {
	t.Helper()
	for _, l := range w.lines {
		if l.Type == "event" && l.Pod == pod && l.Kind == timeline.KindPodGone && l.Ms != nil {
			return *l.Ms
		}
	}
	t.Fatalf("pod %s was never seen gone", pod)
	return 0
}

// createStatefulSet creates a StatefulSet "web" of simulated pods on node
// with a Service "web", and waits until every replica is a ready endpoint.
func createStatefulSet(t *testing.T, env *e2e.Env, ns, node string, replicas int32, o podOpts) {
	t.Helper()
	waitDefaultServiceAccount(t, env, ns)
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: appsv1.StatefulSetSpec{
		Replicas: &replicas, ServiceName: "web",
		Selector: &metav1.LabelSelector{MatchLabels: labelsOf(o)},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labelsOf(o), Annotations: annotations(o)}, Spec: podSpec(node, o)},
	}}
	if _, err := env.Client.AppsV1().StatefulSets(ns).Create(context.Background(), sts, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating statefulset: %v", err)
	}
	waitReadyPods(t, env, ns, int(replicas))
	createService(t, env, ns, "web", nil, nil)
	waitReadyEndpoints(t, env, ns, "web", int(replicas))
}

// createSpreadDeployment creates a Deployment "web" whose pods spread evenly
// over nodes (a topology spread that ignores cordoned nodes), with a Service
// "web", and waits until every replica is a ready endpoint.
func createSpreadDeployment(t *testing.T, env *e2e.Env, ns string, nodes []string, replicas int32, o podOpts) {
	t.Helper()
	waitDefaultServiceAccount(t, env, ns)
	spec := podSpec("", o)
	honor := corev1.NodeInclusionPolicyHonor
	spec.Tolerations = []corev1.Toleration{e2e.NodeToleration}
	spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: e2e.NodeTaintKey, Operator: corev1.NodeSelectorOpIn, Values: nodes}}}}}}}
	spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: e2e.NodeTaintKey,
		WhenUnsatisfiable: corev1.DoNotSchedule, NodeTaintsPolicy: &honor,
		LabelSelector: &metav1.LabelSelector{MatchLabels: labelsOf(o)}}}
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: appsv1.DeploymentSpec{
		Replicas: &replicas,
		Selector: &metav1.LabelSelector{MatchLabels: labelsOf(o)},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labelsOf(o), Annotations: annotations(o)}, Spec: spec},
	}}
	if _, err := env.Client.AppsV1().Deployments(ns).Create(context.Background(), dep, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating deployment: %v", err)
	}
	waitReadyPods(t, env, ns, int(replicas))
	createService(t, env, ns, "web", nil, nil)
	waitReadyEndpoints(t, env, ns, "web", int(replicas))
}

// podsOn returns the sorted names of the namespace's pods on node.
func podsOn(t *testing.T, env *e2e.Env, ns, node string) []string {
	t.Helper()
	l, err := env.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range l.Items {
		out = append(out, p.Name)
	}
	slices.Sort(out)
	return out
}

// RBAC that allows only the workload and its pods: the watch follows the
// rollout with what it can see and says what is missing.
func TestWatchWorkloadE2EDegradesUnderRBAC(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	ns, node := env.Namespace(t), env.Node(t)
	createRolloutDeployment(t, env, ns, node, deploymentOpts{replicas: 2, maxSurge: intOrStr("1"), maxUnavailable: intOrStr("0")},
		podOpts{grace: 10, preStop: 1})
	kc := restrictedKubeconfig(t, env, ns, []rbacv1.PolicyRule{
		{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"get", "list", "watch", "patch"}},
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch"}},
	})
	w := runWorkload(t, kc, watchArgs(ns, "deployment/web", "--restart")...)
	v := w.verdict()
	if w.code != 0 || v.Terminated != 2 || !v.Complete || !w.summary.EndpointsUnseen {
		t.Fatalf("exit %d, %d terminated, complete %v; findings %q; notes %q; stderr %s", w.code, v.Terminated, v.Complete, v.Findings, w.summary.Notes, w.stderr)
	}
	notes := strings.Join(w.summary.Notes, "\n")
	for _, want := range []string{"cannot list Services", "cannot list PodDisruptionBudgets", "cannot watch EndpointSlices", "cannot watch Events"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	for _, p := range v.Pods {
		if p.Raced || !findingWith(p.Verdict, "EndpointSlices could not be watched") {
			t.Errorf("pod %s: %q, want the race left unjudged", p.Pod, p.Verdict.Findings)
		}
	}
	w.finding(t, "the Services could not be listed: no capacity track")
	res := e2e.RunKubectl(t, []string{"KUBECONFIG=" + kc}, "graceful", "watch", "deployment/web", "-n", ns, "--restart", "--settle", "1s", "--timeout", "90s")
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "NO VERDICT ON THE RACE: the EndpointSlices could not be watched") {
		t.Errorf("exit %d, text output:\n%s\nstderr: %s", res.ExitCode, res.Stdout, res.Stderr)
	}
}
