package timeline

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// StopSignal is the signal a container is stopped with, where the pod
// names one. Both sources are alpha (KEP-4960, feature gate
// ContainerStopSignals, off by default through 1.37): a pod that names
// none gets SIGTERM, or its image's STOPSIGNAL, which the API does not
// show.
type StopSignal struct {
	// Name is the signal, as the API spells it ("SIGQUIT").
	Name string `json:"name"`
	// Reported is true when the kubelet reported it as the container's
	// effective stop signal (status.containerStatuses[].stopSignal, by a
	// kubelet with the gate on; it covers the image's STOPSIGNAL too).
	// False when only the spec asks for it (lifecycle.stopSignal, stored
	// by an API server with the gate on): the kubelet sends it only with
	// the gate on itself, else SIGTERM or the image's STOPSIGNAL.
	Reported bool `json:"reported"`
}

// readStopSignals records in signals the stop signal each container of
// pod names: what the kubelet reported wins over the spec, and is kept
// once seen.
func readStopSignals(signals map[string]StopSignal, pod *corev1.Pod) {
	for _, list := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for _, c := range list {
			if c.Lifecycle != nil && c.Lifecycle.StopSignal != nil && !signals[c.Name].Reported {
				signals[c.Name] = StopSignal{Name: string(*c.Lifecycle.StopSignal)}
			}
		}
	}
	for _, list := range [][]corev1.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses} {
		for _, cs := range list {
			if cs.StopSignal != nil {
				signals[cs.Name] = StopSignal{Name: string(*cs.StopSignal), Reported: true}
			}
		}
	}
}

// signalOf names container c's stop signal in a sentence: the one the pod
// names, else "SIGTERM".
func (tl *Timeline) signalOf(c string) string {
	if s, ok := tl.StopSignals[c]; ok {
		return s.Name
	}
	return "SIGTERM"
}

// signalHedged names c's stop signal where a sentence depends on which
// signal it was (the app ignored it): when the pod names none, the image's
// STOPSIGNAL may have replaced SIGTERM.
func (tl *Timeline) signalHedged(c string) string {
	if s, ok := tl.StopSignals[c]; ok {
		return s.Name
	}
	return "SIGTERM (or the image's STOPSIGNAL)"
}

// signalFact says where container c's stop signal was read, when the pod
// names one that is not SIGTERM; "" otherwise.
func (tl *Timeline) signalFact(c string) string {
	s, ok := tl.StopSignals[c]
	switch {
	case !ok || s.Name == "SIGTERM":
		return ""
	case s.Reported:
		return fmt.Sprintf("container %s is stopped with %s, not SIGTERM: the kubelet reports it as its stop signal (status.containerStatuses[].stopSignal)", c, s.Name)
	}
	return fmt.Sprintf("container %s asks to be stopped with %s (lifecycle.stopSignal, alpha gate ContainerStopSignals): the kubelet sends it only with the gate on, and does not report it here; otherwise it sent SIGTERM or the image's STOPSIGNAL", c, s.Name)
}
