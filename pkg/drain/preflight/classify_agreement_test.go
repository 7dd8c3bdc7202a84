package preflight

import (
	"context"
	"io"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	kubectldrain "k8s.io/kubectl/pkg/drain"
)

// agreementPods are pods that kubectl's filters tell apart: owners,
// phases, mirror pods and local storage.
func agreementPods() map[string]*corev1.Pod {
	yes := true
	owned := func(apiVersion, kind string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "p",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: "owner", Controller: &yes}}}}
	}
	finished := func(p *corev1.Pod) *corev1.Pod { p.Status.Phase = corev1.PodSucceeded; return p }
	emptyDir := func(p *corev1.Pod) *corev1.Pod {
		p.Spec.Volumes = []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
		return p
	}
	mirror := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "p", Annotations: map[string]string{corev1.MirrorPodAnnotationKey: "x"}}}
	return map[string]*corev1.Pod{
		"daemonset":             owned("apps/v1", "DaemonSet"),
		"daemonset finished":    finished(owned("apps/v1", "DaemonSet")),
		"daemonset other group": owned("apps.kruise.io/v1alpha1", "DaemonSet"),
		"mirror":                mirror,
		"replicaset":            owned("apps/v1", "ReplicaSet"),
		"replicaset emptyDir":   emptyDir(owned("apps/v1", "ReplicaSet")),
		"emptyDir finished":     finished(emptyDir(owned("apps/v1", "ReplicaSet"))),
		"bare":                  {ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "p"}},
		"bare finished":         finished(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "p"}}),
	}
}

// kubectlAction asks k8s.io/kubectl/pkg/drain what it does with the pod
// under f, the pod alone on its node (its DaemonSet exists).
func kubectlAction(t *testing.T, pod *corev1.Pod, f Flags) podAction {
	t.Helper()
	pod = pod.DeepCopy()
	pod.Spec.NodeName = "n1"
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "owner"}}
	h := &kubectldrain.Helper{Ctx: context.Background(), Client: fake.NewClientset(pod, ds), Force: f.Force,
		IgnoreAllDaemonSets: f.IgnoreDaemonSets, DeleteEmptyDirData: f.DeleteEmptyDirData, Out: io.Discard, ErrOut: io.Discard}
	list, errs := h.GetPodsForDeletion("n1")
	switch {
	case len(errs) > 0:
		return actionRefuse
	case len(list.Pods()) == 1:
		return actionEvict
	}
	return actionSkip
}

// TestClassifyAgreesWithKubectlDrain holds the project's copy of kubectl's
// pod filters (classify) to kubectl's own, for every pod kind and every
// combination of --force, --delete-emptydir-data and --ignore-daemonsets:
// an upgrade of k8s.io/kubectl that changes a filter fails here.
func TestClassifyAgreesWithKubectlDrain(t *testing.T) {
	for name, pod := range agreementPods() {
		for i := 0; i < 8; i++ {
			f := Flags{Force: i&1 != 0, DeleteEmptyDirData: i&2 != 0, IgnoreDaemonSets: i&4 != 0}
			want := kubectlAction(t, pod, f)
			if got := classify(pod, f).action; got != want {
				t.Errorf("%s with %+v: classify says %d, kubectl's drain %d", name, f, got, want)
			}
		}
	}
}
