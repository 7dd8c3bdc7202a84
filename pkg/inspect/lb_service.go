package inspect

import corev1 "k8s.io/api/core/v1"

// ServiceDeregistrationDelay returns the longest deregistration delay, in
// seconds, of the load balancer a LoadBalancer Service gets, as
// lb-deregistration-exceeds-grace reads it from the Service's own spec
// and annotations (the AWS forms; docs/audit.md "Load balancer forms"),
// and where the number comes from; 0 and "" when the Service says none.
func ServiceDeregistrationDelay(svc corev1.Service) (seconds int64, from string) {
	for _, d := range serviceLBDelays(svc) {
		if d.seconds > seconds {
			seconds, from = d.seconds, d.from
		}
	}
	return seconds, from
}
