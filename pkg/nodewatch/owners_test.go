package nodewatch

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// podOwnedBy is a pod owned as named: "daemonset", "kruise-daemonset" (a DaemonSet
// of another API group), "finished-daemonset", "replicaset", "mirror" (a
// static pod's mirror) or "bare".
func podOwnedBy(owner string) *corev1.Pod {
	yes := true
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "shop"}}
	switch owner {
	case "daemonset":
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "agent", Controller: &yes}}
	case "kruise-daemonset":
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps.kruise.io/v1alpha1", Kind: "DaemonSet", Name: "agent", Controller: &yes}}
	case "finished-daemonset":
		p = podOwnedBy("daemonset")
		p.Status.Phase = corev1.PodSucceeded
	case "replicaset":
		p.OwnerReferences = []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "web-7d4", Controller: &yes}}
	case "mirror":
		p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"}
	}
	return p
}
