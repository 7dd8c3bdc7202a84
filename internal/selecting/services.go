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
// whose selector matches its labels (Services without a selector have
// hand-made endpoints and are skipped).
func Services(ctx context.Context, c kubernetes.Interface, pod *corev1.Pod) ([]string, error) {
	list, err := c.CoreV1().Services(pod.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, svc := range list.Items {
		if len(svc.Spec.Selector) == 0 {
			continue
		}
		if labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(pod.Labels)) {
			names = append(names, svc.Name)
		}
	}
	sort.Strings(names)
	return names, nil
}
