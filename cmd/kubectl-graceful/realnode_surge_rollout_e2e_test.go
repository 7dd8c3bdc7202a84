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
// the canary strategy (steps: none, or canary's), spread over the real
// nodes, and a Service selecting its pods; adjust changes the pod spec.
func createRollout(t *testing.T, env *e2e.Env, dc dynamic.Interface, ns, name string, canary map[string]any, o realnode.PodOpts,
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
			"template": tmpl, "strategy": map[string]any{"canary": canary}}}}
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
	env := e2e.Cluster(t)
	env.RealNodes(t)
	defer e2e.GuardUntouched(t)()
	defer uncordonNow(t, env)
	ns := env.Namespace(t)
	env.ArgoRollouts(t, ns)
	dc, err := dynamic.NewForConfig(env.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	logs := t.TempDir()
	app := createRollout(t, env, dc, ns, "canary", map[string]any{}, hardenedOpts, preferNode(realnode.NodeName), withExitLog(logs))
	held := map[string]any{"steps": []any{map[string]any{"setWeight": int64(50)}, map[string]any{"pause": map[string]any{}}}}
	createRollout(t, env, dc, ns, "held", held, naiveOpts, preferNode(realnode.NodeName))
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
	t.Logf("drain --surge exit %d:\n%s%s\n%d requests, %d failed %v", res.ExitCode, res.Stdout, res.Stderr, got.Sent, len(got.Failures), got.Failures)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "surge: Rollout "+ns+"/canary restarted and rolled out in ") ||
		!strings.Contains(res.Stdout, "Service canary: Ready endpoints never reached zero") {
		t.Errorf("drain --surge: exit %d, want 0, the Rollout rolled out and its Service's endpoints never at zero", res.ExitCode)
	}
	if got.Sent < 100 {
		t.Fatalf("too few requests to judge: %d", got.Sent)
	}
	if len(got.Failures) != 0 {
		t.Errorf("%d of %d requests failed during the --surge drain: %v", len(got.Failures), got.Sent, got.Failures)
	}
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
