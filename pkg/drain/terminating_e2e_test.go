package drain_test

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/internal/localcluster/sim"
)

// A pod held by finalizer example.org/keep, deleted with a 90 s grace
// period, whose app exits after 45 s: while the grace period runs the
// preflight waits for it with the time left (exit 0); once its containers
// stopped and the kubelet's (kwok's) final delete moved its deadline to the
// request time, only the finalizer keeps it, and the very next preflight
// blocks (exit 2), naming the finalizer and saying the drain cannot tell
// when waiting helps; never "would succeed in about 0s".
func TestDrainPreflightFinalizerHoldsStoppedPod(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a := f.env.Node(t)
	f.deploy("keep", "keep", 1, map[string]string{hostLabel: a}, map[string]string{sim.ExitAfter: "45s"})
	held := f.pods("app=keep", onNode(a))[0].Name
	pods := f.env.Client.CoreV1().Pods(f.ns)
	f.deleteHeld(held, "example.org/keep", 90)

	within := f.drain(a, "--dry-run")
	expect(t, within, 0, "its grace period (ends in 1m", "then finalizer example.org/keep",
		"[terminating-pod-finalizer] pod "+f.ns+"/"+held, "(and 1 already terminating waited for) in about 1m")

	e2e.WaitFor(t, e2e.SetupWait, held+" stopped and finally deleted by the kubelet", func() bool {
		p, err := pods.Get(f.ctx, held, metav1.GetOptions{})
		return err == nil && p.DeletionGracePeriodSeconds != nil && *p.DeletionGracePeriodSeconds == 0
	})
	stopped := f.drain(a, "--dry-run")
	expect(t, stopped, 2, "[terminating-pod-stuck] pod "+f.ns+"/"+held, "it waits on finalizer example.org/keep",
		"the drain cannot tell when: waiting helps only if that controller acts",
		"Verdict: would block: terminating-pod-stuck (pod "+f.ns+"/"+held+")")
	if strings.Contains(stopped.Stdout, "would succeed") {
		t.Errorf("a pod only its finalizer keeps: the preflight says it would succeed")
	}
}

// A pod on a node without a kubelet (a Node object kwok does not play, so
// never Ready), deleted with a 2 s grace period: nothing can confirm the
// end of its containers, so the moment its deadline passes the preflight
// blocks (exit 2), saying the node is not Ready and waiting will not help.
func TestDrainPreflightTerminatingOnNodeNotReady(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	name := "e2e-gone-" + rand.String(6)
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{hostLabel: name}}}
	if _, err := f.env.Client.CoreV1().Nodes().Create(f.ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pods := f.env.Client.CoreV1().Pods(f.ns)
	t.Cleanup(func() {
		_ = pods.Delete(f.ctx, "lost", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
		_ = f.env.Client.CoreV1().Nodes().Delete(f.ctx, name, metav1.DeleteOptions{})
	})
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "lost"}, Spec: corev1.PodSpec{NodeName: name,
		Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
		Containers:  []corev1.Container{{Name: "app", Image: "example.com/app:1"}}}}
	if _, err := pods.Create(f.ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := pods.Delete(f.ctx, "lost", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](2)}); err != nil {
		t.Fatal(err)
	}
	p, err := pods.Get(f.ctx, "lost", metav1.GetOptions{})
	if err != nil || p.DeletionTimestamp == nil {
		t.Fatalf("pod lost after delete: %v", err)
	}
	// Past the deadline by less than the slack a Ready kubelet is given.
	time.Sleep(time.Until(p.DeletionTimestamp.Add(time.Second)))

	expect(t, f.drain(name, "--dry-run", "--force"), 2, "[terminating-pod-stuck] pod "+f.ns+"/lost",
		"the kubelet of node "+name+", which is not Ready", "waiting will not help while the node is not Ready",
		"Verdict: would block: terminating-pod-stuck (pod "+f.ns+"/lost)")
}
