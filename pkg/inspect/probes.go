package inspect

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var missingReadinessProbe = register(&Check{
	ID:       "missing-readiness-probe",
	Field:    "containers[].readinessProbe",
	Topic:    TopicProbes,
	Severity: SeverityWarning,
	Summary:  "behind a Service with no readinessProbe: traffic arrives before the app is ready, and keeps coming while it is unhealthy",
	Needs:    []Input{InputServices},
	run: func(s *scope, c *Check) []Finding {
		return eachServingContainer(s, func(w *Workload, svc corev1.Service, ctr corev1.Container) *Finding {
			if ctr.ReadinessProbe != nil {
				return nil
			}
			msg := fmt.Sprintf("behind Service %s with no readinessProbe: the pod is an endpoint as soon as it starts", svc.Name)
			f := c.finding(w, ctr.Name, msg, readinessFix(w, ctr))
			return &f
		})
	},
	Explanation: Explanation{
		Why:    "Without a readinessProbe a pod is Ready as soon as its containers start, so it receives traffic before the app listens, and rollouts move on before new pods can serve.",
		Fix:    "Add a readinessProbe (httpGet on a health endpoint, tcpSocket or grpc) to each serving container.",
		Source: "Pod Lifecycle docs, \"Container probes\"; EndpointSlice controller (pkg/controller/endpointslice): the ready condition",
	},
})

func readinessFix(w *Workload, ctr corev1.Container) string {
	probe := map[string]any{"periodSeconds": 5}
	if len(ctr.Ports) > 0 {
		probe["tcpSocket"] = map[string]any{"port": ctr.Ports[0].ContainerPort}
	} else {
		probe["httpGet"] = map[string]any{"path": "/healthz", "port": 8080}
	}
	return patchCommand(w, containerPatch(ctr.Name, map[string]any{"readinessProbe": probe}))
}

var readinessProbePortUnknown = register(&Check{
	ID:       "readiness-probe-port-unknown",
	Field:    "containers[].readinessProbe",
	Topic:    TopicProbes,
	Severity: SeverityWarning,
	Summary:  "readinessProbe targets a named port the container does not declare: kubelet cannot resolve it and the pod never turns Ready",
	run: func(s *scope, c *Check) []Finding {
		return eachWorkload(s, func(s *scope, w *Workload) []Finding {
			var out []Finding
			for _, ctr := range w.Template.Spec.Containers {
				port, ok := probePort(ctr.ReadinessProbe)
				if !ok {
					continue
				}
				if msg := unknownPortMessage(ctr, port); msg != "" {
					out = append(out, c.finding(w, ctr.Name, msg,
						"point the probe at a port the container declares in ports[], or declare that port"))
				}
			}
			return out
		})
	},
	Explanation: Explanation{
		Why:    "kubelet resolves a named probe port in the container's own ports; an undeclared name makes the probe fail forever and the pod never turns Ready. Numbered ports are not flagged: declaring ports is informational and kubelet probes any number.",
		Fix:    "Point the probe at a declared port (by name or number) or declare the port in containers[].ports.",
		Source: "kubelet prober (pkg/kubelet/prober, findPortByName)",
	},
})

// probePort returns the port an httpGet, tcpSocket or grpc probe targets.
func probePort(p *corev1.Probe) (intstr.IntOrString, bool) {
	switch {
	case p == nil:
		return intstr.IntOrString{}, false
	case p.HTTPGet != nil:
		return p.HTTPGet.Port, true
	case p.TCPSocket != nil:
		return p.TCPSocket.Port, true
	case p.GRPC != nil:
		return intstr.FromInt32(p.GRPC.Port), true
	}
	return intstr.IntOrString{}, false
}

// unknownPortMessage explains why port does not resolve, or returns "".
// A named port must be declared by the same container: kubelet resolves it
// there (findPortByName) and fails the probe otherwise. A numbered port is
// never flagged: declaring container ports is informational, and probing
// an undeclared port works (ingress-nginx probes its undeclared 10254).
func unknownPortMessage(ctr corev1.Container, port intstr.IntOrString) string {
	if port.Type != intstr.String {
		return ""
	}
	for _, p := range ctr.Ports {
		if p.Name == port.StrVal {
			return ""
		}
	}
	return fmt.Sprintf("readinessProbe targets port %q, which container %s does not declare (declared: %s): kubelet cannot resolve it and the probe always fails",
		port.StrVal, ctr.Name, declaredPorts(ctr))
}

func declaredPorts(ctr corev1.Container) string {
	var names []string
	for _, p := range ctr.Ports {
		if p.Name != "" {
			names = append(names, p.Name)
		}
	}
	if len(names) == 0 {
		return "no named ports"
	}
	return strings.Join(names, ", ")
}
