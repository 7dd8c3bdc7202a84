package main

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-graceful/kubectl-graceful/internal/argorollout"
	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/internal/realnode"
)

// createRollout creates a single-replica Argo Rollout of the test app with
// strategy (its canary or blueGreen), spread over the real nodes, and a
// Service selecting its pods; adjust changes the pod spec.
func createRollout(t *testing.T, env *e2e.Env, dc dynamic.Interface, ns, name string, strategy map[string]any, o realnode.PodOpts,
	adjust ...func(*corev1.PodSpec)) realApp {
	t.Helper()
	labels := map[string]string{"app": name}
	spec := realnode.PodSpec(o)
	realnode.Spread(&spec, labels)
	for _, f := range adjust {
		f(&spec)
	}
	tmpl, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	ro := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{"replicas": int64(1), "selector": map[string]any{"matchLabels": map[string]any{"app": name}},
			"template": tmpl, "strategy": strategy}}}
	if _, err := dc.Resource(argorollout.Resource).Namespace(ns).Create(context.Background(), ro, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	svc, err := env.Client.CoreV1().Services(ns).Create(context.Background(), &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}}}},
		metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return realApp{name: name, clusterIP: svc.Spec.ClusterIP}
}

// podSeen is the test's own watch of ns's pods: when, and at which event
// of the stream (the API server's order), it first saw each pod Ready and
// each pod deleting (a deletionTimestamp).
type podSeen struct {
	mu       sync.Mutex
	ready    map[string]seenAt
	deleting map[string]seenAt
	stop     func()
}

// seenAt is a time and the event's position in the watch's stream.
type seenAt struct {
	at time.Time
	n  int
}

func watchPods(t *testing.T, env *e2e.Env, ns string) *podSeen {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w, err := env.Client.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := &podSeen{ready: map[string]seenAt{}, deleting: map[string]seenAt{}, stop: func() { cancel(); w.Stop() }}
	go func() {
		n := 0
		for ev := range w.ResultChan() {
			n++
			if p, ok := ev.Object.(*corev1.Pod); ok {
				r.take(p, seenAt{time.Now(), n})
			}
		}
	}()
	return r
}

// take records the first sight of p Ready and of p deleting.
func (r *podSeen) take(p *corev1.Pod, s seenAt) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range p.Status.Conditions {
		if _, seen := r.ready[p.Name]; !seen && c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue && p.DeletionTimestamp == nil {
			r.ready[p.Name] = s
		}
	}
	if _, seen := r.deleting[p.Name]; !seen && p.DeletionTimestamp != nil {
		r.deleting[p.Name] = s
	}
}

// sigtermLine is the app's log line of a SIGTERM.
var sigtermLine = regexp.MustCompile(`SIGTERM at (\S+)`)

// rolloutTest holds both real nodes for the test (their guard checked and
// real-node-0 uncordoned when it ends), and runs the Argo Rollouts
// controller for a namespace of its own; it returns the cluster, the
// namespace and a dynamic client.
func rolloutTest(t *testing.T) (*e2e.Env, string, dynamic.Interface) {
	t.Helper()
	env := e2e.Cluster(t)
	env.RealNodes(t)
	t.Cleanup(e2e.GuardUntouched(t))
	t.Cleanup(func() { uncordonNow(t, env) })
	ns := env.Namespace(t)
	env.ArgoRollouts(t, ns)
	dc, err := dynamic.NewForConfig(env.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	return env, ns, dc
}

// surgedWithoutLoss checks that the --surge drain res exited 0 saying that
// Rollout ns/name rolled out and its Service name never lost its last
// Ready endpoint, and that no request of the test's own loop failed.
func surgedWithoutLoss(t *testing.T, res e2e.Result, got *e2e.Requests, ns, name string) {
	t.Helper()
	t.Logf("drain --surge exit %d:\n%s%s\n%d requests, %d failed %v", res.ExitCode, res.Stdout, res.Stderr, got.Sent, len(got.Failures), got.Failures)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "surge: Rollout "+ns+"/"+name+" restarted and rolled out in ") ||
		!strings.Contains(res.Stdout, "Service "+name+": Ready endpoints never reached zero") {
		t.Errorf("drain --surge: exit %d, want 0, the Rollout rolled out and its Service's endpoints never at zero", res.ExitCode)
	}
	if got.Sent < 100 {
		t.Fatalf("too few requests to judge: %d", got.Sent)
	}
	if len(got.Failures) != 0 {
		t.Errorf("%d of %d requests failed during the --surge drain: %v", len(got.Failures), got.Sent, got.Failures)
	}
}

// A single-replica canary Argo Rollout (no steps) on real-node-0 behind a
// Service, run by the real Argo Rollouts controller, and beside it one
// whose canary has a `pause: {}` step. The preflight says --surge rolls
// the first (Argo's maxSurge 25 % of 1: 1 pod) and cannot the second (the
// pause waits for a promotion). `drain node real-node-0 --surge` restarts
// the first onto real-node-1 while the test's own request loop runs: no
// request fails, the summary says its Ready endpoints never reached zero,
// the test's own pod watch sees the old pod deleted only after the new
// one is Ready, and the old pod's app logs its SIGTERM after that.
func TestRealDrainSurgeRollout(t *testing.T) {
	env, ns, dc := rolloutTest(t)
	logs := t.TempDir()
	app := createRollout(t, env, dc, ns, "canary", map[string]any{"canary": map[string]any{}}, hardenedOpts, preferNode(realnode.NodeName), withExitLog(logs))
	held := map[string]any{"steps": []any{map[string]any{"setWeight": int64(50)}, map[string]any{"pause": map[string]any{}}}}
	createRollout(t, env, dc, ns, "held", map[string]any{"canary": held}, naiveOpts, preferNode(realnode.NodeName))
	pods := env.WaitReadyPods(t, ns, 2, e2e.SetupWait)
	var old string
	for _, p := range pods {
		if p.Spec.NodeName != realnode.NodeName {
			t.Fatalf("pod %s is on %q, want %s", p.Name, p.Spec.NodeName, realnode.NodeName)
		}
		if p.Labels["app"] == "canary" {
			old = p.Name
		}
	}
	if err := realnode.CheckRoute(app.clusterIP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // its endpoint reaches kube-proxy's rules

	plans := map[string]bool{}
	for _, s := range surgePlans(t, env, "--surge") {
		if s.Namespace != ns {
			continue
		}
		plans[s.Owner.Name] = s.CanSurge
		t.Logf("plan for %s: %s", s.Owner, s.Plan)
		switch s.Owner.Name {
		case "canary":
			if s.Owner.Kind != "Rollout" || s.MaxSurge != 1 || s.MaxUnavailable != 0 || !strings.Contains(s.Plan, "canary") {
				t.Errorf("canary's plan: %+v, want a Rollout with maxSurge 1, maxUnavailable 0", s)
			}
		case "held":
			if !strings.Contains(s.Plan, "cannot surge: canary step 2 is a pause without a duration") {
				t.Errorf("held's plan does not say its pause holds it: %s", s.Plan)
			}
		}
	}
	if !plans["canary"] || plans["held"] || len(plans) != 2 {
		t.Fatalf("surge plans (name: can surge) %v, want canary true and held false", plans)
	}

	seen := watchPods(t, env, ns)
	res, got := surgeDrain(t, env, app)
	seen.stop()
	surgedWithoutLoss(t, res, got, ns, "canary")
	after := env.WaitReadyPods(t, ns, 2, e2e.SetupWait)
	var replacement string
	for _, p := range after {
		if p.Labels["app"] == "canary" {
			replacement = p.Name
			if p.Spec.NodeName != realnode.SecondNodeName {
				t.Errorf("the replacement %s is on %q, want %s", p.Name, p.Spec.NodeName, realnode.SecondNodeName)
			}
		}
	}
	sigterm, ok := ownLogTime(filepath.Join(logs, old+".log"), sigtermLine)
	seen.mu.Lock()
	ready, readyOK := seen.ready[replacement]
	deleting, deletingOK := seen.deleting[old]
	seen.mu.Unlock()
	t.Logf("the new pod %s seen Ready at %s (event %d); the old pod %s seen deleting at %s (event %d), its own SIGTERM at %s (%s after the new pod was seen Ready)",
		replacement, ready.at.Format(time.StampMicro), ready.n, old, deleting.at.Format(time.StampMicro), deleting.n,
		sigterm.Format(time.StampMicro), sigterm.Sub(ready.at).Round(time.Millisecond))
	// The watch's order is the API server's: Argo deleted the old pod only
	// once the new one was Ready.
	if !readyOK || !deletingOK || deleting.n <= ready.n {
		t.Errorf("the old pod was deleting (seen %v, event %d) before the new pod was Ready (seen %v, event %d)", deletingOK, deleting.n, readyOK, ready.n)
	}
	if !ok || !sigterm.After(ready.at) {
		t.Errorf("the old pod's SIGTERM (logged %v) did not come after the new pod was seen Ready", ok)
	}
}

// A single-replica blueGreen Argo Rollout on real-node-0 whose active
// Service is its own: `drain node real-node-0 --surge` starts the new
// revision on real-node-1, Argo switches the Service's selector to it,
// and the test's own request loop through that Service loses no request.
func TestRealDrainSurgeRolloutBlueGreen(t *testing.T) {
	env, ns, dc := rolloutTest(t)
	app := createRollout(t, env, dc, ns, "bg", map[string]any{"blueGreen": map[string]any{"activeService": "bg"}}, hardenedOpts,
		preferNode(realnode.NodeName))
	pods := env.WaitReadyPods(t, ns, 1, e2e.SetupWait)
	if pods[0].Spec.NodeName != realnode.NodeName {
		t.Fatalf("the pod is on %q, want %s", pods[0].Spec.NodeName, realnode.NodeName)
	}
	oldHash := pods[0].Labels[argorollout.PodTemplateHashLabel]
	e2e.WaitFor(t, e2e.SetupWait, "Argo to select the revision in the active Service", func() bool {
		svc, err := env.Client.CoreV1().Services(ns).Get(context.Background(), "bg", metav1.GetOptions{})
		return err == nil && svc.Spec.Selector[argorollout.PodTemplateHashLabel] == oldHash
	})
	time.Sleep(2 * time.Second) // the endpoint reaches kube-proxy's rules

	plans := surgePlans(t, env, "--surge")
	if len(plans) != 1 || !plans[0].CanSurge || plans[0].MaxSurge != 1 || !strings.Contains(plans[0].Plan, "switches the active Service bg") {
		t.Fatalf("the plan for bg: %+v", plans)
	}
	res, got := surgeDrain(t, env, app)
	surgedWithoutLoss(t, res, got, ns, "bg")
	// The evicted old pod's ReplicaSet keeps its replica until Argo scales
	// it down (scaleDownDelaySeconds after the switch): it starts one
	// again on real-node-1, outside the active Service.
	if left, err := env.Client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{
		LabelSelector: argorollout.PodTemplateHashLabel + "=" + oldHash}); err == nil {
		for _, p := range left.Items {
			t.Logf("after the drain, a pod of the old revision: %s on %s (deleting %v)", p.Name, p.Spec.NodeName, p.DeletionTimestamp != nil)
		}
	}
	svc, err := env.Client.CoreV1().Services(ns).Get(context.Background(), "bg", metav1.GetOptions{})
	if err != nil || svc.Spec.Selector[argorollout.PodTemplateHashLabel] == oldHash {
		t.Errorf("the active Service still selects the old revision %s (err %v)", oldHash, err)
	}
}
