package drain_test

import (
	"context"
	"encoding/json"
	"fmt"
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
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/internal/localcluster/sim"
)

// These helpers build the objects of the drain scenarios. Every
// test works on nodes of its own (env.Node) and pins its pods to them with
// a node label, because other test packages share the cluster.

const (
	poolLabel = "drain.graceful.test/pool"
	hostLabel = "kubernetes.io/hostname"
)

// fixture is one test's namespace and nodes.
type fixture struct {
	t   testing.TB
	env *e2e.Env
	ns  string
	ctx context.Context
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	env := e2e.Cluster(t)
	return &fixture{t: t, env: env, ns: env.Namespace(t), ctx: context.Background()}
}

// pool labels nodes with a fresh pool value and returns the node selector
// that matches exactly them.
func (f *fixture) pool(nodes ...string) map[string]string {
	f.t.Helper()
	value := "p-" + rand.String(6)
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, poolLabel, value)
	for _, n := range nodes {
		if _, err := f.env.Client.CoreV1().Nodes().Patch(f.ctx, n, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			f.t.Fatal(err)
		}
	}
	return map[string]string{poolLabel: value}
}

// cordon sets the node's spec.unschedulable.
func (f *fixture) cordon(node string, unschedulable bool) {
	f.t.Helper()
	patch := fmt.Sprintf(`{"spec":{"unschedulable":%t}}`, unschedulable)
	if _, err := f.env.Client.CoreV1().Nodes().Patch(f.ctx, node, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

// eachUncordonMode runs test as two parallel subtests: without
// --uncordon-on-failure ("stays-cordoned") and with it.
func eachUncordonMode(t *testing.T, test func(t *testing.T, uncordon bool)) {
	for _, uncordon := range []bool{false, true} {
		name := "stays-cordoned"
		if uncordon {
			name = "uncordon-on-failure"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			test(t, uncordon)
		})
	}
}

// placeOn runs deploy while every node of others is cordoned, so that the
// pods it creates land on the nodes left schedulable, then uncordons
// others: the pods can be rescheduled there later, as the pool
// preflight's capacity check requires.
func (f *fixture) placeOn(others []string, deploy func()) {
	f.t.Helper()
	for _, n := range others {
		f.cordon(n, true)
	}
	deploy()
	for _, n := range others {
		f.cordon(n, false)
	}
}

func (f *fixture) unschedulable(node string) bool {
	f.t.Helper()
	n, err := f.env.Client.CoreV1().Nodes().Get(f.ctx, node, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return n.Spec.Unschedulable
}

// podTemplate is a pod that terminates 1 s after its delete request, with a
// 5 s grace period, so drains are quick.
func podTemplate(labels, nodeSelector, annotations map[string]string) corev1.PodTemplateSpec {
	a := map[string]string{sim.ExitAfter: "1s"}
	for k, v := range annotations {
		a[k] = v
	}
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: a},
		Spec: corev1.PodSpec{
			NodeSelector:                  nodeSelector,
			Tolerations:                   []corev1.Toleration{e2e.NodeToleration},
			TerminationGracePeriodSeconds: ptr.To[int64](5),
			Containers:                    []corev1.Container{{Name: "app", Image: "example.com/app:1"}},
		},
	}
}

// deploy creates a Deployment of replicas pods labelled app=app,role=name
// and waits until they are all Ready.
func (f *fixture) deploy(name, app string, replicas int32, nodeSelector, annotations map[string]string) {
	f.t.Helper()
	labels := map[string]string{"app": app, "role": name}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: podTemplate(labels, nodeSelector, annotations),
		},
	}
	f.create(d, func() error {
		_, err := f.env.Client.AppsV1().Deployments(f.ns).Create(f.ctx, d, metav1.CreateOptions{})
		return err
	})
	if annotations[sim.Ready] == "false" {
		f.waitPods("role="+name, int(replicas), func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
		return
	}
	f.waitPods("role="+name, int(replicas), isReady)
}

func (f *fixture) create(obj any, fn func() error) {
	f.t.Helper()
	if err := fn(); err != nil {
		f.t.Fatalf("create %T: %v", obj, err)
	}
}

// waitPods waits until count live pods match selector and cond.
func (f *fixture) waitPods(selector string, count int, cond func(*corev1.Pod) bool) {
	f.t.Helper()
	e2e.WaitFor(f.t, e2e.SetupWait, fmt.Sprintf("%d pods %s", count, selector), func() bool {
		return len(f.pods(selector, cond)) == count
	})
}

// pods lists the live pods matching selector and cond.
func (f *fixture) pods(selector string, cond func(*corev1.Pod) bool) []corev1.Pod {
	f.t.Helper()
	list, err := f.env.Client.CoreV1().Pods(f.ns).List(f.ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		f.t.Fatal(err)
	}
	var out []corev1.Pod
	for i := range list.Items {
		p := &list.Items[i]
		if p.DeletionTimestamp == nil && cond(p) {
			out = append(out, *p)
		}
	}
	return out
}

func onNode(node string) func(*corev1.Pod) bool {
	return func(p *corev1.Pod) bool { return p.Spec.NodeName == node }
}

func isReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// pdb creates a PodDisruptionBudget for app=app and waits until the
// disruption controller has processed it and counts expected pods.
func (f *fixture) pdb(name, app string, minAvailable, maxUnavailable *intstr.IntOrString,
	policy *policyv1.UnhealthyPodEvictionPolicyType, expected int32) {
	f.t.Helper()
	p := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable: minAvailable, MaxUnavailable: maxUnavailable,
			Selector:                   &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}},
			UnhealthyPodEvictionPolicy: policy,
		},
	}
	f.create(p, func() error {
		_, err := f.env.Client.PolicyV1().PodDisruptionBudgets(f.ns).Create(f.ctx, p, metav1.CreateOptions{})
		return err
	})
	e2e.WaitFor(f.t, e2e.SetupWait, "PDB "+name+" processed", func() bool {
		got, err := f.env.Client.PolicyV1().PodDisruptionBudgets(f.ns).Get(f.ctx, name, metav1.GetOptions{})
		return err == nil && got.Status.ObservedGeneration == got.Generation && got.Status.ExpectedPods == expected
	})
}

// drain runs `kubectl graceful drain node ARGS...` through the real kubectl.
func (f *fixture) drain(args ...string) e2e.Result {
	f.t.Helper()
	return f.drainFor(2*time.Minute, args...)
}

// drainFor is drain giving up after limit: for a drain whose --timeout
// is longer than drain's two minutes.
func (f *fixture) drainFor(limit time.Duration, args ...string) e2e.Result {
	f.t.Helper()
	start := time.Now()
	res := e2e.RunKubectlFor(f.t, limit, []string{"KUBECONFIG=" + f.env.Kubeconfig}, append([]string{"graceful", "drain", "node"}, args...)...)
	f.t.Logf("kubectl graceful drain node %s: exit %d after %s\n--- stdout\n%s--- stderr\n%s",
		strings.Join(args, " "), res.ExitCode, time.Since(start).Round(time.Millisecond), res.Stdout, res.Stderr)
	return res
}

// expect fails the test unless res exited with code and its stdout holds
// every one of want.
func expect(t *testing.T, res e2e.Result, code int, want ...string) {
	t.Helper()
	if res.ExitCode != code {
		t.Errorf("exit status %d, want %d", res.ExitCode, code)
	}
	for _, w := range want {
		if !strings.Contains(res.Stdout, w) {
			t.Errorf("output lacks %q", w)
		}
	}
}

// report is the part of the -o json document the tests read.
type report struct {
	Nodes []struct {
		Node      string `json:"node"`
		Outcome   string `json:"outcome"`
		Preflight struct {
			Blockers []struct{ Kind, PDB, Pod string }
		} `json:"preflight"`
		Pods []struct {
			Name            string  `json:"name"`
			State           string  `json:"state"`
			Attempts        int     `json:"attempts"`
			DurationSeconds float64 `json:"durationSeconds"`
		} `json:"pods"`
		CordonedByUs    bool    `json:"cordonedByUs"`
		DurationSeconds float64 `json:"durationSeconds"`
	} `json:"nodes"`
}

func parseReport(t *testing.T, stdout string) report {
	t.Helper()
	var r report
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("-o json output is not JSON: %v\n%s", err, stdout)
	}
	return r
}

// deployScratch creates a one-replica Deployment whose pod has an emptyDir.
func (f *fixture) deployScratch(nodeSelector map[string]string) {
	f.t.Helper()
	labels := map[string]string{"app": "scratch"}
	tpl := podTemplate(labels, nodeSelector, nil)
	tpl.Spec.Volumes = []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "scratch"}, Spec: appsv1.DeploymentSpec{
		Replicas: ptr.To[int32](1), Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: tpl}}
	f.create(d, func() error {
		_, err := f.env.Client.AppsV1().Deployments(f.ns).Create(f.ctx, d, metav1.CreateOptions{})
		return err
	})
}

// daemonSet creates a DaemonSet running on the nodes nodeSelector matches.
func (f *fixture) daemonSet(nodeSelector map[string]string) {
	f.t.Helper()
	labels := map[string]string{"app": "agent"}
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent"}, Spec: appsv1.DaemonSetSpec{
		Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: podTemplate(labels, nodeSelector, nil)}}
	f.create(ds, func() error {
		_, err := f.env.Client.AppsV1().DaemonSets(f.ns).Create(f.ctx, ds, metav1.CreateOptions{})
		return err
	})
}

// onOneOfTwo makes two fresh nodes a and b of one pool and a Deployment of
// replicas pods (app=app, role=name) that may run on either, all on a: b is
// cordoned while they start, then opened, so that there is room elsewhere.
func (f *fixture) onOneOfTwo(name, app string, replicas int32) (a, b string) {
	f.t.Helper()
	a, b = f.env.Node(f.t), f.env.Node(f.t)
	sel := f.pool(a, b)
	f.cordon(b, true)
	f.deploy(name, app, replicas, sel, nil)
	f.cordon(b, false)
	return a, b
}

// deleteHeld adds finalizer to pod and deletes it with grace seconds; at
// cleanup the finalizer is removed, so that the pod goes.
func (f *fixture) deleteHeld(pod, finalizer string, grace int64) {
	f.t.Helper()
	pods := f.env.Client.CoreV1().Pods(f.ns)
	patch := fmt.Sprintf(`{"metadata":{"finalizers":[%q]}}`, finalizer)
	if _, err := pods.Patch(f.ctx, pod, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() {
		_, _ = pods.Patch(f.ctx, pod, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
	})
	if err := pods.Delete(f.ctx, pod, metav1.DeleteOptions{GracePeriodSeconds: &grace}); err != nil {
		f.t.Fatal(err)
	}
}

// gatedDeploy creates a Deployment of replicas pods (app=web, role=name)
// on node declaring lbGate, and waits until they are Ready (kwok sets the
// gate's condition True with Ready).
func (f *fixture) gatedDeploy(name, node string, replicas int32) {
	f.t.Helper()
	labels := map[string]string{"app": "web", "role": name}
	tpl := podTemplate(labels, map[string]string{hostLabel: node}, nil)
	tpl.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: lbGate}}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: appsv1.DeploymentSpec{
		Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: tpl}}
	f.create(d, func() error {
		_, err := f.env.Client.AppsV1().Deployments(f.ns).Create(f.ctx, d, metav1.CreateOptions{})
		return err
	})
	f.waitPods("role="+name, int(replicas), isReady)
}

// closeGate sets pod's lbGate condition False, as the load balancer
// controller does while the target registers, and Ready False with its
// containers Ready, as the kubelet then computes it.
func (f *fixture) closeGate(pod string) {
	f.t.Helper()
	patch := fmt.Sprintf(`{"status":{"conditions":[
		{"type":%q,"status":"False","reason":"Elb.RegistrationInProgress","message":"Target registration is in progress"},
		{"type":"Ready","status":"False","reason":"ReadinessGatesNotReady","message":"the status of pod readiness gate \"%s\" is not \"True\", but False"},
		{"type":"ContainersReady","status":"True"}]}}`, lbGate, lbGate)
	if _, err := f.env.Client.CoreV1().Pods(f.ns).Patch(f.ctx, pod, types.StrategicMergePatchType, []byte(patch),
		metav1.PatchOptions{}, "status"); err != nil {
		f.t.Fatal(err)
	}
}
