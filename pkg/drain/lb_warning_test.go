package drain

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// lbSvc is a LoadBalancer Service of ns selecting app, with policy, whose
// load balancer is up (status.loadBalancer.ingress).
func lbSvc(ns, name, app string, policy corev1.ServiceExternalTrafficPolicy) corev1.Service {
	return corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:   corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": app}, ExternalTrafficPolicy: policy},
		Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}}}}
}

// Which LoadBalancer Services keep sending to a cordoned node: those of
// policy Cluster wherever their pods are (every node is a target), those of
// policy Local only when the node runs one of their pods (elsewhere the
// load balancer's health check already fails); no other type.
func TestLBNotExcludedCountsTheServicesThatReachTheNode(t *testing.T) {
	pods := []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-1", Labels: map[string]string{"app": "web"}}}}
	clusterIP := lbSvc("shop", "internal", "web", "")
	clusterIP.Spec.Type = corev1.ServiceTypeClusterIP
	svcs := []corev1.Service{
		lbSvc("other", "ingress", "nginx", corev1.ServiceExternalTrafficPolicyCluster),
		lbSvc("shop", "web", "web", corev1.ServiceExternalTrafficPolicyLocal),
		lbSvc("shop", "api", "api", corev1.ServiceExternalTrafficPolicyLocal),
		lbSvc("other", "web", "web", corev1.ServiceExternalTrafficPolicyLocal),
		clusterIP,
	}
	w, ok := lbNotExcluded("node-1", svcs, pods)
	if !ok || w.Kind != preflight.WarningLBNotExcluded {
		t.Fatalf("no lb-not-excluded warning: %+v", w)
	}
	if !strings.HasPrefix(w.Message, "2 LoadBalancer Service(s) (other/ingress, shop/web): ") {
		t.Errorf("message %q, want the Cluster one and the Local one with a pod on the node", w.Message)
	}
	// kubernetes/autoscaler#5532: the change was 1.19's, not KEP-3458's.
	if !strings.Contains(w.Message, "since Kubernetes 1.19, kubernetes/kubernetes#90823") || strings.Contains(w.Message, "3458") {
		t.Errorf("message %q does not date the change from its source (kubernetes/kubernetes#90823, 1.19)", w.Message)
	}
	if _, ok := lbNotExcluded("node-1", svcs[2:], pods); ok {
		t.Errorf("a warning for Local Services with no pod on the node")
	}
	// A load balancer not yet in the status: the node's own Service is
	// named as pending, another is not counted (as --exclude-from-lb's
	// wait counts them).
	for i := range svcs {
		svcs[i].Status = corev1.ServiceStatus{}
	}
	if w, ok := lbNotExcluded("node-1", svcs, pods); !ok || !strings.HasPrefix(w.Message, "1 LoadBalancer Service(s) (shop/web (no load balancer in its status yet)): ") {
		t.Errorf("pending Services: %q", w.Message)
	}
}
