package rollout

import (
	"context"
	"fmt"
	"sort"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
)

// canWatchPods asks the API server (SelfSubjectAccessReview, what `kubectl
// auth can-i` sends) whether the user may list and watch pods in ns, so
// that a missing permission stops the command before it changes anything.
// A review that cannot be sent is not a refusal: the watch itself will say.
func canWatchPods(ctx context.Context, c kubernetes.Interface, ns string) error {
	for _, verb := range []string{"list", "watch"} {
		rev, err := c.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
			Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: ns, Verb: verb, Resource: "pods"}},
		}, metav1.CreateOptions{})
		if err != nil {
			return nil
		}
		if !rev.Status.Allowed {
			why := ""
			if rev.Status.Reason != "" {
				why = ": " + rev.Status.Reason
			}
			return fmt.Errorf("cannot %s pods in namespace %s (RBAC%s): watching a workload needs get, list and watch on pods", verb, ns, why)
		}
	}
	return nil
}

// budgetsFor returns the PodDisruptionBudgets of ns whose selector matches
// the pod template's labels, with their status.desiredHealthy.
func budgetsFor(ctx context.Context, c kubernetes.Interface, ns string, tmpl labels.Set) ([]Budget, error) {
	list, err := c.PolicyV1().PodDisruptionBudgets(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var out []Budget
	for _, pdb := range list.Items {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || pdb.Spec.Selector == nil || !sel.Matches(tmpl) {
			continue
		}
		out = append(out, Budget{Name: pdb.Name, DesiredHealthy: pdb.Status.DesiredHealthy})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
