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
	run: perServingContainer(func(s *scope, c *Check, w *Workload, svc corev1.Service, ctr corev1.Container) []Finding {
		if ctr.ReadinessProbe != nil {
			return nil
		}
		msg := fmt.Sprintf("behind Service %s with no readinessProbe: the pod is an endpoint as soon as it starts", svc.Name)
		return []Finding{c.finding(w, ctr.Name, msg, readinessFix(w, ctr))}
	}),
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
		return unknownProbePorts(s, c, "readinessProbe")
	},
	Explanation: Explanation{
		Why:    "kubelet resolves a named probe port in the container's own ports; an undeclared name makes the probe fail forever and the pod never turns Ready. Numbered ports are not flagged: declaring ports is informational and kubelet probes any number.",
		Fix:    "Point the probe at a declared port (by name or number) or declare the port in containers[].ports.",
		Source: "kubelet prober (pkg/kubelet/prober, findPortByName)",
	},
})

var probePortUnknown = register(&Check{
	ID:       "probe-port-unknown",
	Field:    "containers[].livenessProbe, containers[].startupProbe",
	Topic:    TopicProbes,
	Severity: SeverityWarning,
	Summary:  "livenessProbe or startupProbe targets a named port the container does not declare: kubelet cannot resolve it, every probe fails, and it restarts the container again and again",
	run: func(s *scope, c *Check) []Finding {
		return append(unknownProbePorts(s, c, "startupProbe"), unknownProbePorts(s, c, "livenessProbe")...)
	},
	Explanation: Explanation{
		Why: "kubelet resolves a named probe port in the container's own ports (a port another container declares does not count); " +
			"an undeclared name fails every probe. A failing livenessProbe or startupProbe makes kubelet kill the container " +
			"after failureThreshold failures and restart it under the pod's restartPolicy: a restart loop (CrashLoopBackOff), each " +
			"restart a termination of its own. While a startupProbe fails, liveness and readiness probes never start. " +
			"Numbered ports are not flagged: kubelet probes any number, declared or not.",
		Fix:    "Point the probe at a declared port (by name or number) or declare the port in containers[].ports.",
		Source: "kubelet prober (pkg/kubelet/prober/prober.go: findPortByName, a probe that cannot run is a failure); pkg/kubelet/kuberuntime/kuberuntime_manager.go (a failed liveness or startup probe restarts the container); https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-probes/",
	},
})

// probeFailure is what kubelet does with a probe that always fails, by
// the probe's field name.
var probeFailure = map[string]string{
	"readinessProbe": "kubelet cannot resolve it and the probe always fails",
	"livenessProbe":  "kubelet cannot resolve it, every probe fails, and kubelet restarts the container after each failureThreshold failures",
	"startupProbe":   "kubelet cannot resolve it, every probe fails, kubelet restarts the container after failureThreshold failures and its liveness and readiness probes never start",
}

// unknownProbePorts is the finding of c for each container of each
// workload whose probe of kind (readinessProbe, livenessProbe,
// startupProbe) names a port the container does not declare.
func unknownProbePorts(s *scope, c *Check, kind string) []Finding {
	var out []Finding
	for _, w := range s.inv.Workloads {
		for _, ctr := range w.Template.Spec.Containers {
			port, ok := probePort(probeOf(ctr, kind))
			if !ok {
				continue
			}
			if msg := unknownPortMessage(ctr, kind, port); msg != "" {
				out = append(out, c.finding(w, ctr.Name, msg,
					"point the probe at a port the container declares in ports[], or declare that port"))
			}
		}
	}
	return out
}

// probeOf is ctr's probe of kind.
func probeOf(ctr corev1.Container, kind string) *corev1.Probe {
	switch kind {
	case "livenessProbe":
		return ctr.LivenessProbe
	case "startupProbe":
		return ctr.StartupProbe
	}
	return ctr.ReadinessProbe
}

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
func unknownPortMessage(ctr corev1.Container, kind string, port intstr.IntOrString) string {
	if port.Type != intstr.String {
		return ""
	}
	for _, p := range ctr.Ports {
		if p.Name == port.StrVal {
			return ""
		}
	}
	return fmt.Sprintf("%s targets port %q, which container %s does not declare (declared: %s): %s",
		kind, port.StrVal, ctr.Name, declaredPorts(ctr), probeFailure[kind])
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
