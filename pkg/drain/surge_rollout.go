package drain

import (
	"context"
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-graceful/kubectl-graceful/internal/argorollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// rolloutRoll is an Argo Rollout --surge restarts, read and patched as
// unstructured data.
type rolloutRoll struct {
	client dynamic.NamespaceableResourceInterface
	ro     *unstructured.Unstructured
}

// readRollout reads the Rollout namespace/name.
func (d *nodeRun) readRollout(ctx context.Context, namespace, name string) (*rolloutRoll, error) {
	if d.Dynamic == nil {
		return nil, errors.New("reading the Rollout: no dynamic client")
	}
	client := d.Dynamic.Resource(argorollout.Resource)
	ro, err := client.Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("reading the Rollout: %w", err)
	}
	return &rolloutRoll{client: client, ro: ro}, nil
}

// podLabels are the template's labels and the current revision's
// rollouts-pod-template-hash: Argo adds the hash to the selector of the
// Services it manages (a blueGreen active Service, canary stable and
// canary Services), which the template's labels alone do not match.
func (r *rolloutRoll) podLabels() map[string]string {
	out, _, _ := unstructured.NestedStringMap(r.ro.Object, "spec", "template", "metadata", "labels") // a copy
	if out == nil {
		out = map[string]string{}
	}
	if hash, _, _ := unstructured.NestedString(r.ro.Object, "status", "currentPodHash"); hash != "" {
		out[argorollout.PodTemplateHashLabel] = hash
	}
	return out
}

// restart sets the pod template's restartedAt annotation with a JSON merge
// patch (a custom resource takes no strategic merge patch): a new
// template, so Argo starts a new revision under its strategy. Not Argo's
// spec.restartAt, which evicts the pods within maxUnavailable instead.
func (r *rolloutRoll) restart(ctx context.Context, at string) error {
	patch := fmt.Sprintf(`{"spec":{"template":{"metadata":{"annotations":{%q:%q}}}}}`, preflight.RestartedAtAnnotation, at)
	out, err := r.client.Namespace(r.ro.GetNamespace()).Patch(ctx, r.ro.GetName(), types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	if err != nil {
		return fmt.Errorf("restarting Rollout %s/%s: %w", r.ro.GetNamespace(), r.ro.GetName(), err)
	}
	r.ro = out
	return nil
}

// waitDone waits, from a watch of the Rollout (not polling), until Argo's
// rule says its rollout is done or failed (argorollout.Status), or ctx
// ends.
func (r *rolloutRoll) waitDone(ctx context.Context) error {
	ns, name, generation := r.ro.GetNamespace(), r.ro.GetName(), r.ro.GetGeneration()
	rollouts := r.client.Namespace(ns)
	lw := clientListWatch(rollouts.List, rollouts.Watch, byName(name))
	return untilRolledOut(ctx, "Rollout", ns, name, generation, lw, argorollout.Status)
}
