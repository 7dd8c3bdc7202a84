package preflight

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// LBNotExcluded returns the warning that the cluster's LoadBalancer
// Services keep sending to node through the drain: since Kubernetes 1.30 a
// cordon no longer takes a node out of them (KEP-3458), only the label
// node.kubernetes.io/exclude-from-external-load-balancers does. ok is
// false when there is no LoadBalancer Service.
func LBNotExcluded(node string, services []corev1.Service) (Issue, bool) {
	var names []string
	for _, s := range services {
		if s.Spec.Type == corev1.ServiceTypeLoadBalancer {
			names = append(names, s.Namespace+"/"+s.Name)
		}
	}
	if len(names) == 0 {
		return Issue{}, false
	}
	shown := names
	if len(shown) > 3 {
		shown = append(shown[:3:3], fmt.Sprintf("%d more", len(names)-3))
	}
	return Issue{Kind: WarningLBNotExcluded, Message: fmt.Sprintf(
		"%d LoadBalancer Service(s) (%s): the cordon does not take node %s out of their load balancers (Kubernetes 1.30+, KEP-3458), so they may keep sending it connections through the drain; --exclude-from-lb labels it %s first",
		len(names), strings.Join(shown, ", "), node, corev1.LabelNodeExcludeBalancers)}, true
}
