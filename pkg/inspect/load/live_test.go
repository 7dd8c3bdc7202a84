package load

import (
	"context"
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// TestLiveRequestsDoNotGrowWithObjects: the live audit lists each resource
// type (in pages), it never makes a request per object. Pure request
// accounting, so the fake clientset is enough here; the behaviour against a
// real API server is covered by the e2e tests.
func TestLiveRequestsDoNotGrowWithObjects(t *testing.T) {
	requests := func(n int) (int, *inspect.Inventory) {
		var objs []runtime.Object
		for i := range n {
			name := fmt.Sprintf("app-%d", i)
			rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop",
				OwnerReferences: []metav1.OwnerReference{{Kind: "Deployment", Name: name, Controller: ptr.To(true)}}}}
			objs = append(objs,
				&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"}},
				rs,
				&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name + "-x", Namespace: "shop",
					OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: name, Controller: ptr.To(true)}}}},
				&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"}})
		}
		cs := fake.NewClientset(objs...)
		inv := &inspect.Inventory{Live: true}
		l := newLister(context.Background(), cs, "shop", LiveOptions{}, inv)
		if err := l.lists("", labels.Everything()); err != nil {
			t.Fatal(err)
		}
		for _, a := range cs.Actions() {
			if a.GetVerb() != "list" {
				t.Errorf("unexpected %s %s", a.GetVerb(), a.GetResource().Resource)
			}
		}
		return len(cs.Actions()), inv
	}
	few, small := requests(3)
	many, big := requests(300)
	if few != many {
		t.Errorf("%d requests for 3 workloads, %d for 300: requests must not grow with objects", few, many)
	}
	if len(small.Workloads) != 3 || len(big.Workloads) != 300 || len(big.Pods) != 300 {
		t.Errorf("owned ReplicaSets and pods must be reported through their Deployment: %d/%d workloads, %d pods",
			len(small.Workloads), len(big.Workloads), len(big.Pods))
	}
}
