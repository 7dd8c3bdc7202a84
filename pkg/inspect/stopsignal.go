package inspect

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// stopSignalGate is the feature gate of lifecycle.stopSignal (KEP-4960):
// alpha from 1.33 and still alpha, off by default, in 1.37 (the local
// cluster's kube-apiserver --help: "ContainerStopSignals=true|false
// (ALPHA - default=false)"). With it off the API server drops the field.
const stopSignalGate = "ContainerStopSignals"

var stopSignal = register(&Check{
	ID:       "stop-signal",
	Field:    "containers[].lifecycle.stopSignal",
	Topic:    TopicTermination,
	Severity: SeverityWarning,
	Summary:  "lifecycle.stopSignal: alpha (feature gate ContainerStopSignals, off by default through 1.37) so dropped by default API servers; SIGKILL behind a Service kills in-flight requests",
	run: perContainer(func(s *scope, w *Workload, ctr corev1.Container) (string, string) {
		if ctr.Lifecycle == nil || ctr.Lifecycle.StopSignal == nil {
			return "", ""
		}
		sig := string(*ctr.Lifecycle.StopSignal)
		if s.inv.Live {
			// Stored, so the API server's gate is on; the kubelet's is
			// not shown by the API.
			if sig != "SIGKILL" || len(s.servicesFor(w)) == 0 {
				return "", ""
			}
			return fmt.Sprintf("lifecycle.stopSignal is SIGKILL behind Service %s: the container is killed at once after preStop, with no chance to finish in-flight requests", s.servicesFor(w)[0].Name),
				"remove lifecycle.stopSignal (SIGTERM, or the image's STOPSIGNAL), or set a signal the app handles gracefully"
		}
		msg := fmt.Sprintf("lifecycle.stopSignal %s needs the alpha feature gate %s (KEP-4960, alpha since 1.33, off by default through 1.37, target %s): without it the API server drops the field and the container gets its image's STOPSIGNAL or SIGTERM; with it, the pod also needs spec.os.name",
			sig, stopSignalGate, versionOr(s.inv.Version, "1.30+"))
		if !s.inv.Version.AtLeast(1, 33) {
			msg = fmt.Sprintf("lifecycle.stopSignal %s is not a field of Kubernetes %s (it came in 1.33, behind the alpha feature gate %s): the API server drops or refuses it",
				sig, s.inv.Version, stopSignalGate)
		}
		if sig == "SIGKILL" && len(s.servicesFor(w)) > 0 {
			msg += "; and SIGKILL behind a Service kills in-flight requests"
		}
		return msg, "remove lifecycle.stopSignal and handle SIGTERM (or set STOPSIGNAL in the image), unless every API server and kubelet runs with " + stopSignalGate + " on"
	}),
	Explanation: Explanation{
		Why: "lifecycle.stopSignal chooses the signal the kubelet sends a container at termination instead of the image's STOPSIGNAL or SIGTERM. It is alpha (feature gate ContainerStopSignals, alpha since 1.33 and off by default through 1.37): an API server without the gate drops the field, so the manifest does not do what it says; with the gate on, the pod needs spec.os.name, and the kubelet needs the gate too, which the API does not show. " +
			"Live, an object holding the field was accepted by a gated API server; the finding is then only for SIGKILL behind a Service, which ends in-flight requests at once.",
		Fix:    "Handle SIGTERM in the app (or set STOPSIGNAL in the image) and remove the field, unless every API server and kubelet runs with the gate; never SIGKILL for a serving container.",
		Source: "KEP-4960 (ContainerStopSignals); k8s.io/api core/v1 Lifecycle.StopSignal; kube-apiserver --feature-gates (ALPHA - default=false in 1.37, the gates of pkg/features/kube_features.go)",
	},
})
