package inspect

import (
	"encoding/json"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// GKE load balancer forms: a Service names its BackendConfig (GKE Ingress
// and its load balancer read connectionDraining.drainingTimeoutSec from it,
// default 0: no draining), and its NEG annotation says whether pods are the
// load balancer's endpoints (container-native load balancing).
const (
	gkeBackendConfig     = "cloud.google.com/backend-config"
	gkeBackendConfigBeta = "beta.cloud.google.com/backend-config"
	gkeNEG               = "cloud.google.com/neg"
)

// gkeDelays returns the connection draining of the BackendConfigs svc names.
func (s *scope) gkeDelays(svc corev1.Service) []lbDelay {
	targets := ""
	if usesNEG(svc) {
		targets = targetsPods
	}
	var out []lbDelay
	for _, name := range backendConfigNames(svc) {
		if v, ok := s.inv.BackendConfigs[namespaceOf(svc.Namespace)+"/"+name]; ok {
			from := "GKE BackendConfig " + name + " connection draining"
			if targets == targetsPods {
				from += " (NEG: pods are the endpoints)"
			}
			out = append(out, lbDelay{v, from, targets, "the BackendConfig's spec.connectionDraining.drainingTimeoutSec"})
		}
	}
	return out
}

// usesNEG reports whether the Service's NEG annotation asks for
// container-native load balancing ({"ingress": true} or exposed ports).
func usesNEG(svc corev1.Service) bool {
	var neg struct {
		Ingress      bool           `json:"ingress"`
		ExposedPorts map[string]any `json:"exposed_ports"`
	}
	return annotationJSON(svc, &neg, gkeNEG) && (neg.Ingress || len(neg.ExposedPorts) > 0)
}

// annotationJSON decodes into v the first of keys that svc annotates;
// false when it annotates none or the value does not parse.
func annotationJSON(svc corev1.Service, v any, keys ...string) bool {
	for _, k := range keys {
		if raw := svc.Annotations[k]; raw != "" {
			return json.Unmarshal([]byte(raw), v) == nil
		}
	}
	return false
}

// backendConfigNames returns the BackendConfig names a Service's
// annotation refers to: {"default": "x"} and {"ports": {"80": "y"}}.
func backendConfigNames(svc corev1.Service) []string {
	var ref struct {
		Default string            `json:"default"`
		Ports   map[string]string `json:"ports"`
	}
	if !annotationJSON(svc, &ref, gkeBackendConfig, gkeBackendConfigBeta) {
		return nil
	}
	var out []string
	if ref.Default != "" {
		out = append(out, ref.Default)
	}
	return slices.AppendSeq(out, maps.Values(ref.Ports))
}
