package nodewatch

import (
	"context"
	"errors"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
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

// ownedReplicaSet is a ReplicaSet in shop controlled by Deployment deploy.
func ownedReplicaSet(name, deploy string) *appsv1.ReplicaSet {
	yes := true
	return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: deploy, Controller: &yes}}}}
}

func podOfReplicaSet(name, rs string) *corev1.Pod {
	yes := true
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs, Controller: &yes}}}}
}

// verbs are the fake clientset's requests for replicasets, by verb.
func verbs(c *fake.Clientset) map[string]int {
	out := map[string]int{}
	for _, a := range c.Actions() {
		if a.GetResource().Resource == "replicasets" {
			out[a.GetVerb()]++
		}
	}
	return out
}

// The workloads of a namespace's pods cost one List of its ReplicaSets,
// not a GET each; a ReplicaSet created after the List, or a List that
// RBAC refuses, falls back to a GET, and each answer is cached.
func TestOwnersListEachNamespaceOnce(t *testing.T) {
	ctx := context.Background()
	c := fake.NewClientset(ownedReplicaSet("web-1", "web"), ownedReplicaSet("api-1", "api"))
	o := newOwners(c)
	for _, p := range []*corev1.Pod{podOfReplicaSet("w", "web-1"), podOfReplicaSet("a", "api-1"), podOfReplicaSet("w2", "web-1")} {
		want := map[string]string{"web-1": "web", "api-1": "api"}[p.OwnerReferences[0].Name]
		if got := o.of(ctx, p); got.Kind != "Deployment" || got.Name != want {
			t.Errorf("%s: workload %+v, want Deployment %s", p.Name, got, want)
		}
	}
	if v := verbs(c); v["list"] != 1 || v["get"] != 0 {
		t.Errorf("requests %v, want one list and no get", v)
	}
	if _, err := c.AppsV1().ReplicaSets("shop").Create(ctx, ownedReplicaSet("web-2", "web"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := o.of(ctx, podOfReplicaSet("w3", "web-2")); got.Name != "web" || verbs(c)["get"] != 1 {
		t.Errorf("a ReplicaSet newer than the List: %+v after %v, want web through one get", got, verbs(c))
	}

	refused := fake.NewClientset(ownedReplicaSet("web-1", "web"))
	refused.PrependReactor("list", "replicasets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "replicasets"}, "", errors.New("no list"))
	})
	o = newOwners(refused)
	for range 2 {
		if got := o.of(ctx, podOfReplicaSet("w", "web-1")); got.Name != "web" {
			t.Errorf("list refused: workload %+v, want Deployment web through a get", got)
		}
	}
	if v := verbs(refused); v["list"] != 1 || v["get"] != 1 {
		t.Errorf("list refused: requests %v, want the list tried once and one get", v)
	}
}
