// Package podspec knows which level of a pod template a field belongs to:
// the pod spec or a container (k8s.io/api/core/v1 PodSpec, Container), for
// the fields manifests write at the other level, the grace period a pod
// spec gets with the API default, and a pod's condition of a type.
package podspec

// Fields of a pod spec and of a container that manifests put at the other
// level (Kong/charts#639 set terminationGracePeriodSeconds in a
// container), and the hooks of a container's lifecycle written beside it.
var (
	PodSpecOnly = map[string]bool{"terminationGracePeriodSeconds": true, "activeDeadlineSeconds": true,
		"serviceAccountName": true, "nodeSelector": true, "tolerations": true, "affinity": true,
		"topologySpreadConstraints": true, "priorityClassName": true, "volumes": true, "initContainers": true}
	ContainerOnly = map[string]bool{"lifecycle": true, "readinessProbe": true, "livenessProbe": true, "startupProbe": true,
		"ports": true, "image": true, "command": true, "args": true, "env": true, "resources": true, "volumeMounts": true}
	LifecycleHooks = map[string]bool{"preStop": true, "postStart": true}
)
