package inspect

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Only load balancers with node targets behind externalTrafficPolicy
// Cluster send through every node.
func TestDeregistrationDelayOfANodeWithoutThePods(t *testing.T) {
	const attrs = "service.beta.kubernetes.io/aws-load-balancer-target-group-attributes"
	for _, tc := range []struct {
		name        string
		policy      corev1.ServiceExternalTrafficPolicy
		annotations map[string]string
		want        int64
	}{
		{"instance targets, Cluster", corev1.ServiceExternalTrafficPolicyCluster,
			map[string]string{"service.beta.kubernetes.io/aws-load-balancer-type": "external", attrs: "deregistration_delay.timeout_seconds=40"}, 40},
		{"policy unset is Cluster", "",
			map[string]string{"service.beta.kubernetes.io/aws-load-balancer-type": "nlb"}, 300},
		{"instance targets, Local", corev1.ServiceExternalTrafficPolicyLocal,
			map[string]string{"service.beta.kubernetes.io/aws-load-balancer-type": "external", attrs: "deregistration_delay.timeout_seconds=40"}, 0},
		{"pod targets", corev1.ServiceExternalTrafficPolicyCluster,
			map[string]string{"service.beta.kubernetes.io/aws-load-balancer-type": "external", "service.beta.kubernetes.io/aws-load-balancer-nlb-target-type": "ip"}, 0},
	} {
		svc := corev1.Service{ObjectMeta: metav1.ObjectMeta{Annotations: tc.annotations},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ExternalTrafficPolicy: tc.policy}}
		got, from := DeregistrationDelay(svc, false)
		if got != tc.want || (got > 0) != strings.HasSuffix(from, "externalTrafficPolicy Cluster: through every node") {
			t.Errorf("%s: %d %q, want %d", tc.name, got, from, tc.want)
		}
	}
}
