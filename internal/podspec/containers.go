package podspec

import corev1 "k8s.io/api/core/v1"

// TerminatingContainers returns the containers kubelet stops with preStop
// and SIGTERM: regular containers and restartable init containers
// (sidecars, restartPolicy: Always), in that order.
func TerminatingContainers(spec corev1.PodSpec) []corev1.Container {
	out := append([]corev1.Container(nil), spec.Containers...)
	for _, c := range spec.InitContainers {
		if IsSidecar(c) {
			out = append(out, c)
		}
	}
	return out
}

// IsSidecar reports whether init container c is a native sidecar: a
// restartable init container (restartPolicy: Always, KEP-753), which the
// kubelet keeps running beside the app and stops after it.
func IsSidecar(c corev1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}
