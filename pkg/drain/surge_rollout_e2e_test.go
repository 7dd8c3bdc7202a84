package drain_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/internal/argorollout"
	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// A single-replica blueGreen Rollout on node a, run by the real Argo
// Rollouts controller, whose activeService is then changed to a Service
// that does not exist: Argo marks it Degraded (InvalidSpec). The
// preflight says --surge cannot roll it, quoting Argo's message: the
// restart would fail at once and the drain then evict its only pod. The
// controller wrote the observedGeneration the plan reads (a string), so
// the plan is not that of a Rollout no controller handled; and the drain
// leaves the Rollout unpatched.
func TestDrainSurgeDegradedRollout(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.env.ArgoRollouts(t, f.ns)
	a, b := f.env.Node(t), f.env.Node(t)
	sel := f.pool(a, b)
	tmpl, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ptr.To(podTemplate(map[string]string{"app": "web"}, sel, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ros := dynamic.NewForConfigOrDie(f.env.RESTConfig).Resource(argorollout.Resource).Namespace(f.ns)
	ro := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout",
		"metadata": map[string]any{"name": "web"},
		"spec": map[string]any{"replicas": int64(1), "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"template": tmpl, "strategy": map[string]any{"blueGreen": map[string]any{"activeService": "web"}}}}}
	f.placeOn([]string{b}, func() {
		f.service("web", 0)
		if _, err := ros.Create(f.ctx, ro, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		f.waitPods("app=web", 1, func(p *corev1.Pod) bool { return p.Spec.NodeName == a && isReady(p) })
	})
	patch := `{"spec":{"strategy":{"blueGreen":{"activeService":"nosuch"}}}}`
	if _, err := ros.Patch(f.ctx, "web", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	e2e.WaitFor(t, e2e.SetupWait, "Rollout web Degraded", func() bool {
		got, err := ros.Get(f.ctx, "web", metav1.GetOptions{})
		phase, _, _ := unstructured.NestedString(got.Object, "status", "phase")
		observed, _, _ := unstructured.NestedString(got.Object, "status", "observedGeneration")
		return err == nil && phase == "Degraded" && observed == fmt.Sprint(got.GetGeneration())
	})
	res := f.drain(a, "--surge", "--dry-run=client")
	expect(t, res, 0, f.ns+"/Rollout/web", "cannot surge: the Rollout is Degraded (InvalidSpec: ", "[single-replica]")
	res = f.drain(a, "--surge", "--timeout", "60s")
	expect(t, res, 0, "node "+a+" drained")
	got, err := ros.Get(f.ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ann, _, _ := unstructured.NestedStringMap(got.Object, "spec", "template", "metadata", "annotations"); ann[argorollout.RestartedAtAnnotation] != "" {
		t.Errorf("the drain restarted a Degraded Rollout: %v", ann)
	}
}
