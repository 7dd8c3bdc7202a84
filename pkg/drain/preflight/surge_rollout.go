package preflight

import (
	"cmp"
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-graceful/kubectl-graceful/internal/argorollout"
)

// readRollouts lists the Argo Rollouts of namespace when one of owners (a
// ReplicaSet's controller) is a Rollout, by "namespace/name", and says why
// they could not be read, if so. Elsewhere it reads nothing: most
// clusters serve no Rollout resource.
func readRollouts(ctx context.Context, dc dynamic.Interface, namespace string, owners map[string]OwnerRef) (map[string]*unstructured.Unstructured, string) {
	out := map[string]*unstructured.Unstructured{}
	wanted := false
	for _, o := range owners {
		wanted = wanted || o.Kind == argorollout.Kind
	}
	switch {
	case !wanted:
		return out, ""
	case dc == nil:
		return out, "the Rollouts were not read (no dynamic client)"
	}
	list, err := dc.Resource(argorollout.Resource).Namespace(namespace).List(ctx, metav1.ListOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return out, "the API server does not serve rollouts.argoproj.io/v1alpha1"
	case err != nil:
		return out, "the Rollouts could not be read: " + err.Error()
	}
	for i := range list.Items {
		out[namespace+"/"+list.Items[i].GetName()] = &list.Items[i]
	}
	return out, ""
}

// planRollout fills s from Argo's rules for ro (nil: it could not be
// read, unknown says why).
func (s *SurgePlan) planRollout(ro *unstructured.Unstructured, unknown string) {
	if ro == nil {
		unknown = cmp.Or(unknown, "the Rollout was not found")
		s.Plan = "cannot surge: cannot tell: " + unknown
		return
	}
	a := argorollout.SurgePlan(ro)
	s.Replicas, s.MaxSurge, s.MaxUnavailable, s.CanSurge, s.Plan = a.Replicas, a.MaxSurge, a.MaxUnavailable, a.CanSurge, a.Plan
}
