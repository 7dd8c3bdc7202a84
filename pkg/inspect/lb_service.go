package inspect

import corev1 "k8s.io/api/core/v1"

// DeregistrationDelay is how long, in seconds, labelling a node
// node.kubernetes.io/exclude-from-external-load-balancers takes to take
// it out of svc's load balancers, and where the number comes from (0 and
// "" when none): all of them when the node serves svc's pods
// (serviceDeregistrationDelay), else only those that send through every
// node (serviceNodeDeregistrationDelay).
func DeregistrationDelay(svc corev1.Service, servesNode bool) (seconds int64, from string) {
	if servesNode {
		return serviceDeregistrationDelay(svc)
	}
	return serviceNodeDeregistrationDelay(svc)
}

// serviceDeregistrationDelay returns the longest deregistration delay, in
// seconds, of the load balancer a LoadBalancer Service gets, as
// lb-deregistration-exceeds-grace reads it from the Service's own spec
// and annotations (the AWS forms; docs/audit.md "Load balancer forms"),
// and where the number comes from; 0 and "" when the Service says none.
func serviceDeregistrationDelay(svc corev1.Service) (seconds int64, from string) {
	for _, d := range serviceLBDelays(svc) {
		if d.seconds > seconds {
			seconds, from = d.seconds, d.from
		}
	}
	return seconds, from
}

// serviceNodeDeregistrationDelay is serviceDeregistrationDelay of the load
// balancers of svc that send through every node: those that register
// nodes (instance targets), when svc's externalTrafficPolicy is Cluster
// (the API's default), for which kube-proxy forwards from any node to the
// pods wherever they run. Labelling a node
// node.kubernetes.io/exclude-from-external-load-balancers deregisters it
// from them whatever pods it runs; with externalTrafficPolicy Local a
// node without the Service's pods fails the load balancer's health check
// (healthCheckNodePort) and carries none of its traffic. from says so; 0
// and "" when none.
func serviceNodeDeregistrationDelay(svc corev1.Service) (seconds int64, from string) {
	if svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal {
		return 0, ""
	}
	for _, d := range serviceLBDelays(svc) {
		if d.targets == targetsNodes && d.seconds > seconds {
			seconds, from = d.seconds, d.from+", externalTrafficPolicy Cluster: through every node"
		}
	}
	return seconds, from
}
