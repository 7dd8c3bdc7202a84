package e2e

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"

	"github.com/kubectl-graceful/kubectl-graceful/internal/localcluster"
)

// Namespace creates a fresh namespace for the test and deletes it (without
// waiting) when the test ends.
func (e *Env) Namespace(t testing.TB) string {
	t.Helper()
	ns, err := e.Client.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	t.Cleanup(func() {
		_ = e.Client.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
	})
	return ns.Name
}

// NodeTaintKey taints every node Env.Node creates (effect NoSchedule), so
// the scheduler never places another test's pods on it. Pods meant for such
// a node either name it in spec.nodeName or carry NodeToleration.
const NodeTaintKey = "e2e.graceful.test/node"

// NodeToleration lets a pod be scheduled onto nodes made by Env.Node.
var NodeToleration = corev1.Toleration{Key: NodeTaintKey, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}

// Node creates a fresh Ready kwok node that only this test uses and waits
// for it to be Ready. It is tainted with NodeTaintKey and labelled
// e2e.graceful.test/node=<name>. At cleanup the pods left on it are force-deleted (kwok
// stops running them once the node is gone, so they would never finish) and
// the node is deleted.
func (e *Env) Node(t testing.TB) string {
	t.Helper()
	return e.NodeWith(t, nil)
}

// NodeWith is Node with status.allocatable (and capacity) set to
// allocatable when it is not nil, instead of kwok's default of 1k CPU,
// 1 TiB and 1M pods: the API server keeps a node's status on create, and
// kwok's node-initialize stage keeps an allocatable already set.
func (e *Env) NodeWith(t testing.TB, allocatable corev1.ResourceList) string {
	t.Helper()
	ctx := context.Background()
	name := "e2e-node-" + rand.String(6)
	node := localcluster.NewFakeNode(name, map[string]string{NodeTaintKey: name})
	node.Spec.Taints = []corev1.Taint{{Key: NodeTaintKey, Value: name, Effect: corev1.TaintEffectNoSchedule}}
	node.Status.Allocatable, node.Status.Capacity = allocatable, allocatable
	if _, err := e.Client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create node: %v", err)
	}
	t.Cleanup(func() { e.deleteNode(name) })
	if err := localcluster.WaitNodeReady(ctx, e.Client, name, SetupWait); err != nil {
		t.Fatalf("%v%s", err, missingComponents())
	}
	// The node lifecycle controller lifts the node.kubernetes.io/not-ready
	// taint on its next pass after Ready (seconds later); until then the
	// scheduler leaves the node out, and a topology spread over test nodes
	// puts every pod on the other one.
	e.WaitUntainted(t, name, corev1.TaintNodeNotReady)
	return name
}

// WaitUntainted waits up to SetupWait until node has no taint with key
// (the node lifecycle controller lifts node.kubernetes.io/not-ready after
// Ready and node.kubernetes.io/unschedulable after an uncordon, seconds
// later; until then the scheduler leaves the node out).
func (e *Env) WaitUntainted(t testing.TB, node, key string) {
	t.Helper()
	WaitFor(t, SetupWait, "node "+node+" without the taint "+key, func() bool {
		n, err := e.Client.CoreV1().Nodes().Get(context.Background(), node, metav1.GetOptions{})
		return err == nil && !slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == key })
	})
}

func (e *Env) deleteNode(name string) {
	ctx := context.Background()
	pods, err := e.Client.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + name})
	if err == nil {
		for _, p := range pods.Items {
			_ = e.Client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: new(int64(0))})
		}
	}
	_ = e.Client.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{})
}

// SetupWait bounds a test's waits on the control plane's controllers while
// it builds its fixture (a namespace's default ServiceAccount, pods Ready,
// an EndpointSlice listing them, a PDB's status). After an API server
// outage (the fault tests make one on purpose) kube-controller-manager's
// informers start their LIST and WATCH again with client-go's reflector
// backoff (800 ms doubling to 30 s, jitter 1.0: up to 60 s between two
// tries), so a controller can lag a minute behind an API server that
// already answers; 30 s setup waits failed there (CI, 2026-11-30).
const SetupWait = 2 * time.Minute

// WaitFor polls cond every 100 ms until it returns true or timeout passes;
// then it fails the test with what, and with the control-plane components
// of the test's clusters that are not running, if any.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("timed out after %s waiting for %s%s", timeout, what, missingComponents())
}

// WaitReadyPods waits up to timeout until ns has at least n Ready pods
// that are not terminating, and returns them; otherwise it fails the test
// with how many there were and the control-plane components that are not
// running, if any.
func (e *Env) WaitReadyPods(t testing.TB, ns string, n int, timeout time.Duration) []corev1.Pod {
	t.Helper()
	ready, err := localcluster.WaitReadyPods(context.Background(), e.Client, ns, n, timeout)
	if err != nil {
		t.Fatalf("%v%s", err, missingComponents())
	}
	return ready
}
