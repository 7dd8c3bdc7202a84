package nodewatch

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
)

// excepted reports whether a drain leaves the pod where it is, so the
// watch neither follows it nor waits for it: a running pod of an apps/v1
// DaemonSet (kubectl drain --ignore-daemonsets; a DaemonSet of another
// API group is evicted) or a mirror pod (the kubelet's static pod,
// annotation kubernetes.io/config.mirror), as k8s.io/kubectl/pkg/drain's
// daemonSetFilter and mirrorPodFilter read them. kubectl --force also
// evicts a DaemonSet pod whose DaemonSet is gone; the watch, which reads
// no DaemonSet, still leaves it out.
func excepted(pod *corev1.Pod) bool {
	if _, mirror := pod.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		return true
	}
	if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return false
	}
	c := metav1.GetControllerOf(pod)
	return c != nil && c.Kind == "DaemonSet" && c.APIVersion == appsv1.SchemeGroupVersion.String()
}

// owners names the workload of each pod: its controller, and for a
// ReplicaSet the Deployment that owns it. The ReplicaSets are read with
// one List per namespace, at the first pod of that namespace, so that a
// drain of 200 Deployments costs one request, not 200; a ReplicaSet the
// List did not hold (created after it) or a List refused (RBAC may grant
// get without list) falls back to one GET, cached. A pod without a
// controller is its own workload (kind Pod).
type owners struct {
	client kubernetes.Interface
	rs     map[string]rollout.Workload
	// listed holds the namespaces whose ReplicaSets were listed (or tried).
	listed map[string]bool
}

func newOwners(client kubernetes.Interface) owners {
	return owners{client: client, rs: map[string]rollout.Workload{}, listed: map[string]bool{}}
}

func (o *owners) of(ctx context.Context, pod *corev1.Pod) rollout.Workload {
	c := metav1.GetControllerOf(pod)
	if c == nil {
		return rollout.Workload{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name}
	}
	w := rollout.Workload{Kind: c.Kind, Namespace: pod.Namespace, Name: c.Name}
	if c.Kind != "ReplicaSet" {
		return w
	}
	key := pod.Namespace + "/" + c.Name
	if !o.listed[pod.Namespace] {
		o.listed[pod.Namespace] = true
		if l, err := o.client.AppsV1().ReplicaSets(pod.Namespace).List(ctx, metav1.ListOptions{}); err == nil {
			for i := range l.Items {
				o.rs[pod.Namespace+"/"+l.Items[i].Name] = ownerOf(&l.Items[i])
			}
		}
	}
	if got, ok := o.rs[key]; ok {
		return got
	}
	// A ReplicaSet that cannot be read (RBAC, gone) stays the workload.
	if rs, err := o.client.AppsV1().ReplicaSets(pod.Namespace).Get(ctx, c.Name, metav1.GetOptions{}); err == nil {
		w = ownerOf(rs)
	}
	o.rs[key] = w
	return w
}

// ownerOf is the workload a ReplicaSet's pods belong to: its Deployment,
// else the ReplicaSet itself.
func ownerOf(rs *appsv1.ReplicaSet) rollout.Workload {
	if d := metav1.GetControllerOf(rs); d != nil && d.Kind == "Deployment" {
		return rollout.Workload{Kind: d.Kind, Namespace: rs.Namespace, Name: d.Name}
	}
	return rollout.Workload{Kind: "ReplicaSet", Namespace: rs.Namespace, Name: rs.Name}
}
