package preflight

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubectl/pkg/util/podutils"
)

// OwnerRef names the workload a pod belongs to: its controller, or, for a
// ReplicaSet that a Deployment controls, the Deployment.
type OwnerRef struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

// String returns "Kind/name", or "(no controller)" for a bare pod.
func (o OwnerRef) String() string {
	if o.Kind == "" {
		return "(no controller)"
	}
	return o.Kind + "/" + o.Name
}

// replicated reports whether the owner recreates an evicted pod (and so
// can make room elsewhere): everything but a bare pod and a DaemonSet.
func (o OwnerRef) replicated() bool {
	return o.Kind != "" && o.Kind != "DaemonSet"
}

// ownerOf returns the workload of pod. rsOwners maps "namespace/replicaSet"
// to the ReplicaSet's own controller (a Deployment), as Gather resolved it;
// a ReplicaSet missing from it is its own workload.
func ownerOf(pod *corev1.Pod, rsOwners map[string]OwnerRef) OwnerRef {
	ref := metav1.GetControllerOf(pod)
	if ref == nil {
		return OwnerRef{}
	}
	if ref.Kind == "ReplicaSet" {
		if o, ok := rsOwners[pod.Namespace+"/"+ref.Name]; ok {
			return o
		}
	}
	return OwnerRef{Kind: ref.Kind, Name: ref.Name}
}

// podKey returns "namespace/name".
func podKey(pod *corev1.Pod) string { return pod.Namespace + "/" + pod.Name }

// isReady reports whether the pod's Ready condition is True, as the
// disruption controller counts a healthy pod (pkg/controller/disruption:
// countHealthyPods uses podutil.IsPodReady and skips terminating pods).
func isReady(pod *corev1.Pod) bool {
	return pod.DeletionTimestamp == nil && podutils.IsPodReady(pod)
}

// finished reports whether pod's phase is terminal (Succeeded, Failed):
// kubectl's filters and the disruption controller no longer count it.
func finished(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
}

// live reports whether pod is neither terminating nor finished: what its
// controller and its budget count as one of their pods.
func live(pod *corev1.Pod) bool { return pod.DeletionTimestamp == nil && !finished(pod) }

// bypassesBudget reports whether the eviction API deletes pod without
// checking any PodDisruptionBudget: Pending, Succeeded and Failed pods and
// pods already terminating (pkg/registry/core/pod/storage/eviction.go:
// canIgnorePDB).
func bypassesBudget(pod *corev1.Pod) bool {
	switch pod.Status.Phase {
	case corev1.PodPending, corev1.PodSucceeded, corev1.PodFailed:
		return true
	}
	return pod.DeletionTimestamp != nil
}
