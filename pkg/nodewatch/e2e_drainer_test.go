package nodewatch_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// TestWatchNodeNamesClusterAutoscaler: a drain started the way
// cluster-autoscaler starts one (its ToBeDeletedByClusterAutoscaler taint,
// valued with the Unix time, a cordon, evictions by the test) is named by
// watch node, with the taint's time and cluster-autoscaler's default cap
// on grace periods; before the taint, no drainer is named.
func TestWatchNodeNamesClusterAutoscaler(t *testing.T) {
	t.Parallel()
	env, ns, node := onePodNode(t, "scaled", 0)
	ctx := context.Background()
	w := watchWide(t, env, node)
	if strings.Contains(w.Stdout(), "drained by") || strings.Contains(w.Stdout(), "cordoned by someone") {
		t.Fatalf("a drainer is named before any mark:\n%s", w.Stdout())
	}

	since := time.Now().Truncate(time.Second)
	patch := fmt.Sprintf(`{"spec":{"unschedulable":true,"taints":[{"key":"ToBeDeletedByClusterAutoscaler","value":"%d","effect":"NoSchedule"}]}}`, since.Unix())
	if _, err := env.Client.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("node %s: drained by cluster-autoscaler (taint ToBeDeletedByClusterAutoscaler) since %sZ; deadline: each pod's grace period is capped at 600 s, cluster-autoscaler's default",
		node, since.UTC().Format(time.TimeOnly))
	w.WaitOutput(t, time.Minute, want)

	pods, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
	if err != nil || len(pods.Items) != 1 {
		t.Fatalf("pods on %s: %v, %v", node, pods, err)
	}
	p := pods.Items[0]
	if err := env.Client.PolicyV1().Evictions(ns).Evict(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: ns}}); err != nil {
		t.Fatal(err)
	}
	res := w.Wait()
	t.Logf("watch node:\n%s\n%s", res.Stdout, res.Stderr)
	if strings.Count(res.Stdout, "drained by cluster-autoscaler") < 2 {
		t.Errorf("the summary does not name cluster-autoscaler again among its notes:\n%s", res.Stdout)
	}
	if strings.Contains(res.Stdout, "cordoned by someone") {
		t.Errorf("the cordon is called unmarked although cluster-autoscaler's taint is on the node:\n%s", res.Stdout)
	}
}

// TestWatchNodeNamesKuredOfAHelmRelease: kured installed under another
// name and namespace (a Helm release's) holds its lock for the node and
// cordons it: watch node finds the lock on that DaemonSet and names kured
// and the DaemonSet; before the cordon, no drainer is named.
func TestWatchNodeNamesKuredOfAHelmRelease(t *testing.T) {
	t.Parallel()
	env, ns, node := onePodNode(t, "rebooted", 0)
	ctx := context.Background()
	labels := map[string]string{"app.kubernetes.io/name": "kured"}
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "nightly-kured", Annotations: map[string]string{
			"weave.works/kured-node-lock": fmt.Sprintf(`{"nodeID":%q,"metadata":{"unschedulable":false},"created":"2026-01-01T00:00:00Z","TTL":0}`, node)}},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					// No node runs it: only its lock matters here.
					NodeSelector: map[string]string{"kubectl-graceful.dev/no-such-node": "true"},
					Containers:   []corev1.Container{{Name: "kured", Image: "example.com/kured:1"}},
				},
			},
		},
	}
	if _, err := env.Client.AppsV1().DaemonSets(ns).Create(ctx, ds, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w := watchWide(t, env, node)
	if strings.Contains(w.Stdout(), "drained by") {
		t.Fatalf("a drainer is named before the cordon:\n%s", w.Stdout())
	}
	if _, err := env.Client.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, []byte(`{"spec":{"unschedulable":true}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	w.WaitOutput(t, time.Minute, fmt.Sprintf("node %s: drained by kured (the weave.works/kured-node-lock lock on DaemonSet %s/nightly-kured names this node)", node, ns))
	evictOnly(t, env, ns, "rebooted")
	res := w.Wait()
	if strings.Contains(res.Stdout, "cordoned by someone") {
		t.Errorf("the cordon is called unmarked although kured's lock names the node:\n%s", res.Stdout)
	}
}

// TestWatchNodeShowsDrainerEventsAndConditions: an Event about the node
// emitted as cluster-autoscaler emits it, and a condition a node problem
// detector adds, are on the timeline as they come, each with who said it
// and its words escaped; an Event about another node is not.
func TestWatchNodeShowsDrainerEventsAndConditions(t *testing.T) {
	t.Parallel()
	env, ns, node := onePodNode(t, "announced", 0)
	ctx := context.Background()
	w := watchWide(t, env, node)

	now := metav1.NewTime(time.Now())
	for i, about := range []string{node + "-other", node} {
		// A cluster-scoped object's Events live in default, as client-go's
		// recorder writes them (the API server refuses another namespace).
		ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s.scaledown-%d", node, i), Namespace: metav1.NamespaceDefault},
			InvolvedObject: corev1.ObjectReference{Kind: "Node", Name: about, APIVersion: "v1"},
			Reason:         "ScaleDown", Message: "marked the node as toBeDeleted/unschedulable", Type: corev1.EventTypeNormal,
			Source: corev1.EventSource{Component: "cluster-autoscaler"}, FirstTimestamp: now, LastTimestamp: now, Count: 1}
		if _, err := env.Client.CoreV1().Events(ev.Namespace).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = env.Client.CoreV1().Events(ev.Namespace).Delete(context.Background(), ev.Name, metav1.DeleteOptions{})
		})
	}
	w.WaitOutput(t, time.Minute, "Normal Event ScaleDown by cluster-autoscaler: marked the node as toBeDeleted/unschedulable")

	cond := fmt.Sprintf(`{"status":{"conditions":[{"type":"TerminationScheduled","status":"True","reason":"SpotInterruption","message":"reclaimed in 2 minutes\u001b[2J","lastTransitionTime":%q,"lastHeartbeatTime":%q}]}}`,
		now.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	if _, err := env.Client.CoreV1().Nodes().Patch(ctx, node, types.StrategicMergePatchType, []byte(cond),
		metav1.PatchOptions{FieldManager: "node-problem-detector"}, "status"); err != nil {
		t.Fatal(err)
	}
	w.WaitOutput(t, time.Minute, `condition TerminationScheduled=True (SpotInterruption: reclaimed in 2 minutes\x1b[2J) by node-problem-detector`)

	// Cordoned, as the drainer would: the replacement goes elsewhere.
	if _, err := env.Client.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, []byte(`{"spec":{"unschedulable":true}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	evictOnly(t, env, ns, "announced")
	res := w.Wait()
	t.Logf("watch node:\n%s\n%s", res.Stdout, res.Stderr)
	if n := strings.Count(res.Stdout, "Event ScaleDown"); n != 1 {
		t.Errorf("%d ScaleDown lines, want the followed node's one:\n%s", n, res.Stdout)
	}
	if strings.Contains(res.Stdout, "\x1b") {
		t.Errorf("an escape byte from the cluster reached the output:\n%q", res.Stdout)
	}
}

// evictOnly evicts the one pod of app in ns.
func evictOnly(t *testing.T, env *e2e.Env, ns, app string) {
	t.Helper()
	ctx := context.Background()
	pods, err := env.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=" + app})
	if err != nil || len(pods.Items) != 1 {
		t.Fatalf("pods of %s: %v, %v", app, pods, err)
	}
	p := pods.Items[0]
	if err := env.Client.PolicyV1().Evictions(ns).Evict(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: ns}}); err != nil {
		t.Fatal(err)
	}
}

// watchWide starts `watch node NODE --wide` (each line whole) and waits
// until it has listed the node's pods and their Services.
func watchWide(t *testing.T, env *e2e.Env, node string) *e2e.Running {
	t.Helper()
	w := env.StartKubectl(t, 2*time.Minute, "graceful", "watch", "node", node, "--settle", "1s", "--timeout", "90s", "--wide")
	w.WaitOutput(t, time.Minute, "capacity")
	return w
}
