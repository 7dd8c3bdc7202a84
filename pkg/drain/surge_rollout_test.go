package drain

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/argorollout"
)

// A Rollout is restarted with a JSON merge patch of its template's
// restartedAt annotation (a custom resource takes no strategic merge
// patch), and its Services are looked for with the current revision's
// hash label, which Argo adds to the selectors of the Services it manages.
func TestRolloutRestartIsAMergePatchOfTheTemplate(t *testing.T) {
	ro := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "Rollout",
		"metadata": map[string]any{"name": "web", "namespace": "shop"},
		"spec":     map[string]any{"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}}}},
		"status":   map[string]any{"currentPodHash": "abc12"}}}
	dc := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{argorollout.Resource: "RolloutList"}, ro)
	d := &nodeRun{run: &run{Drainer: &Drainer{Dynamic: dc}}}
	r, err := d.readRollout(context.Background(), "shop", "web")
	if err != nil {
		t.Fatal(err)
	}
	if got := r.podLabels(); got["app"] != "web" || got[argorollout.PodTemplateHashLabel] != "abc12" {
		t.Fatalf("pod labels %v", got)
	}
	if err := r.restart(context.Background(), "2026-12-02T23:00:00Z"); err != nil {
		t.Fatal(err)
	}
	var patch k8stesting.PatchAction
	for _, a := range dc.Actions() {
		if p, ok := a.(k8stesting.PatchAction); ok {
			patch = p
		}
	}
	if patch == nil || patch.GetPatchType() != types.MergePatchType ||
		string(patch.GetPatch()) != `{"spec":{"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/restartedAt":"2026-12-02T23:00:00Z"}}}}}` {
		t.Fatalf("patch %v", patch)
	}
	if got := r.ro.GetAnnotations(); got != nil {
		t.Fatalf("the patch annotated the Rollout itself: %v", got)
	}
}
