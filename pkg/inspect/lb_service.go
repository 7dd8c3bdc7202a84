package inspect

import corev1 "k8s.io/api/core/v1"

// DeregistrationDelay is how long, in seconds, labelling a node
// node.kubernetes.io/exclude-from-external-load-balancers takes to take
// it out of svc's load balancers, and where the number comes from (0 and
// "" when none): the longest deregistration delay of the load balancer a
// LoadBalancer Service gets, as lb-deregistration-exceeds-grace reads it
// from the Service's own spec and annotations (the AWS forms;
// docs/audit.md "Load balancer forms").
//
// When the node serves none of svc's pods (servesNode false), only the
// load balancers that send through every node count: those that register
// nodes (instance targets), when svc's externalTrafficPolicy is Cluster
// (the API's default), for which kube-proxy forwards from any node to the
// pods wherever they run. Labelling the node deregisters it from them
// whatever pods it runs; with externalTrafficPolicy Local a node without
// the Service's pods fails the load balancer's health check
// (healthCheckNodePort) and carries none of its traffic. from says so.
func DeregistrationDelay(svc corev1.Service, servesNode bool) (seconds int64, from string) {
	if !servesNode && svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal {
		return 0, ""
	}
	for _, d := range serviceLBDelays(svc) {
		if (servesNode || d.targets == targetsNodes) && d.seconds > seconds {
			seconds, from = d.seconds, d.from
		}
	}
	if !servesNode && from != "" {
		from += ", externalTrafficPolicy Cluster: through every node"
	}
	return seconds, from
}
