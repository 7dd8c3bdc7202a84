package drain

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/selecting"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// lbNotExcluded returns the warning that the cluster's LoadBalancer
// Services keep sending to node through the drain: since Kubernetes 1.19
// (kubernetes/kubernetes#90823) only the exclude-from-external-load-balancers
// label takes a node out of them, not a cordon. The Services that count are
// those of --exclude-from-lb's wait (delayOf); one of the node's own without
// a load balancer yet is named as pending. See docs/drain.md (Load
// balancers). ok is false when no Service counts.
func lbNotExcluded(node string, services []corev1.Service, pods []corev1.Pod) (preflight.Issue, bool) {
	var names []string
	for _, s := range services {
		if s.Spec.Type != corev1.ServiceTypeLoadBalancer {
			continue
		}
		serves := slices.ContainsFunc(pods, func(p corev1.Pod) bool { return selecting.Selects(&s, &p) })
		pending := len(s.Status.LoadBalancer.Ingress) == 0
		switch {
		case serves && pending:
			names = append(names, s.Namespace+"/"+s.Name+" (no load balancer in its status yet)")
		case serves || !pending && s.Spec.ExternalTrafficPolicy != corev1.ServiceExternalTrafficPolicyLocal:
			names = append(names, s.Namespace+"/"+s.Name)
		}
	}
	if len(names) == 0 {
		return preflight.Issue{}, false
	}
	shown := names
	if len(shown) > 3 {
		shown = append(shown[:3:3], fmt.Sprintf("%d more", len(names)-3))
	}
	return preflight.Issue{Kind: preflight.WarningLBNotExcluded, Message: fmt.Sprintf(
		"%d LoadBalancer Service(s) (%s): the cordon does not take node %s out of their load balancers (since Kubernetes 1.19, kubernetes/kubernetes#90823), so they may keep sending it connections through the drain; --exclude-from-lb labels it %s first",
		len(names), strings.Join(shown, ", "), node, corev1.LabelNodeExcludeBalancers)}, true
}

// lbUnknown is the lb-not-excluded warning when the Services could not be
// listed (err): whether a load balancer still sends to node is not known.
func lbUnknown(node string, err error) preflight.Issue {
	return preflight.Issue{Kind: preflight.WarningLBNotExcluded, Message: fmt.Sprintf(
		"cannot tell whether a LoadBalancer Service sends connections to node %s through the drain: listing the Services failed (%v); --exclude-from-lb labels it %s first",
		node, err, corev1.LabelNodeExcludeBalancers)}
}
