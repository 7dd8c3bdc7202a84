package inspect

import (
	"iter"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TargetGroupBinding is what the checks read of an AWS Load Balancer
// Controller TargetGroupBinding (elbv2.k8s.aws/v1beta1): the Service whose
// pods or nodes it registers in an AWS target group.
type TargetGroupBinding struct {
	Namespace, Name string
	// ServiceName is spec.serviceRef.name.
	ServiceName string
	// TargetType is spec.targetType: "ip", "instance" or "" (not set).
	TargetType string
	// Managed marks a binding the controller made for one of its own
	// Services or Ingresses (its stack labels), whose target group settings
	// come from their annotations.
	Managed bool
}

// customResource is a custom resource a live audit lists, and the input
// it fills.
type customResource struct {
	resource schema.GroupVersionResource
	input    Input
}

// loadBalancerResources are read by a live audit where the cluster serves
// them (GKE, EKS with the AWS Load Balancer Controller); elsewhere they are
// absent and nothing is reported.
var loadBalancerResources = []customResource{
	{schema.GroupVersionResource{Group: "cloud.google.com", Version: "v1", Resource: "backendconfigs"}, InputBackendConfigs},
	{schema.GroupVersionResource{Group: "elbv2.k8s.aws", Version: "v1beta1", Resource: "targetgroupbindings"}, InputTargetGroupBindings},
}

// CustomResources yields the custom resources a live audit lists where
// the cluster serves them, each with the Input its objects fill (for
// Inventory.Unavailable): the load balancers' (GKE BackendConfig, AWS
// TargetGroupBinding), then the scalers' (KEDA ScaledObject, Argo
// Rollout). Their objects go to Inventory.Add.
func CustomResources() iter.Seq2[schema.GroupVersionResource, Input] {
	return func(yield func(schema.GroupVersionResource, Input) bool) {
		for _, r := range slices.Concat(loadBalancerResources, scalingResources) {
			if !yield(r.resource, r.input) {
				return
			}
		}
	}
}

// addLoadBalancerObject files a load balancer custom resource (a GKE
// BackendConfig, an AWS TargetGroupBinding) from its unstructured content.
// It returns false for any other kind.
func (inv *Inventory) addLoadBalancerObject(u *unstructured.Unstructured) bool {
	gvk := u.GroupVersionKind()
	switch {
	case gvk.Group == "cloud.google.com" && gvk.Kind == "BackendConfig":
		secs, _, _ := unstructured.NestedInt64(u.Object, "spec", "connectionDraining", "drainingTimeoutSec")
		inv.addBackendConfig(u.GetNamespace(), u.GetName(), secs)
	case gvk.Group == "elbv2.k8s.aws" && gvk.Kind == "TargetGroupBinding":
		svc, _, _ := unstructured.NestedString(u.Object, "spec", "serviceRef", "name")
		typ, _, _ := unstructured.NestedString(u.Object, "spec", "targetType")
		inv.TargetGroupBindings = append(inv.TargetGroupBindings, TargetGroupBinding{Namespace: u.GetNamespace(), Name: u.GetName(),
			ServiceName: svc, TargetType: typ, Managed: hasKeyPrefix(u.GetLabels(), "ingress.k8s.aws/stack", "service.k8s.aws/stack")})
		inv.Objects++
	default:
		return false
	}
	return true
}

// hasKeyPrefix reports whether a key of m starts with one of prefixes.
func hasKeyPrefix(m map[string]string, prefixes ...string) bool {
	for k := range m {
		if slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(k, p) }) {
			return true
		}
	}
	return false
}
