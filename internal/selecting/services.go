// Package selecting reads what selects a pod: the Services the pod and
// rollout watches follow.
package selecting

import (
	"context"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
)

// Services returns the names of the Services in the pod's namespace
// that select it (Selects).
func Services(ctx context.Context, c kubernetes.Interface, pod *corev1.Pod) ([]string, error) {
	list, err := c.CoreV1().Services(pod.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var names []string
	for i := range list.Items {
		if Selects(&list.Items[i], pod) {
			names = append(names, list.Items[i].Name)
		}
	}
	sort.Strings(names)
	return names, nil
}

// Selects reports whether svc's selector matches pod, as the
// EndpointSlice controller picks a Service's pods: the same namespace and
// a non-empty selector (a Service without one has hand-made endpoints).
func Selects(svc *corev1.Service, pod *corev1.Pod) bool {
	return svc.Namespace == pod.Namespace && len(svc.Spec.Selector) > 0 &&
		labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(pod.Labels))
}
