package load

import (
	"context"
	"fmt"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// fakeCluster holds n Deployments, each with an owned ReplicaSet, an owned
// pod and a Service, plus one bare pod when bare; pods are also served as
// metadata, as the API server does for PartialObjectMetadata lists.
func fakeCluster(n int, bare bool) (*fake.Clientset, *metadatafake.FakeMetadataClient) {
	var objs, metas []runtime.Object
	pod := func(name string, owners []metav1.OwnerReference) {
		om := metav1.ObjectMeta{Name: name, Namespace: "shop", Labels: map[string]string{"app": name}, OwnerReferences: owners}
		objs = append(objs, &corev1.Pod{ObjectMeta: om, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}})
		metas = append(metas, &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: om})
	}
	for i := range n {
		name := fmt.Sprintf("app-%d", i)
		objs = append(objs,
			&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"}},
			&appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop",
				OwnerReferences: []metav1.OwnerReference{{Kind: "Deployment", Name: name, Controller: ptr.To(true)}}}},
			&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"}})
		pod(name+"-x", []metav1.OwnerReference{{Kind: "ReplicaSet", Name: name, Controller: ptr.To(true)}})
	}
	if bare {
		pod("debug", nil)
	}
	scheme := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(scheme); err != nil {
		panic(err)
	}
	return fake.NewClientset(objs...), metadatafake.NewSimpleMetadataClient(scheme, metas...)
}

// TestLiveRequestsDoNotGrowWithObjects: the live audit lists each resource
// type (in pages), it never makes a request per object; pods a workload
// owns are read as metadata only and kept as labels. Pure request
// accounting, so fake clients are enough here; the behaviour against a real
// API server is covered by the e2e tests.
func TestLiveRequestsDoNotGrowWithObjects(t *testing.T) {
	for _, bare := range []bool{false, true} {
		requests := func(n int) (int, *inspect.Inventory) {
			cs, md := fakeCluster(n, bare)
			inv := &inspect.Inventory{Live: true}
			l := newLister(context.Background(), cs, md, "shop", LiveOptions{}, inv)
			if err := l.lists("", labels.Everything()); err != nil {
				t.Fatal(err)
			}
			actions := append(cs.Actions(), md.Actions()...)
			for _, a := range actions {
				if a.GetVerb() != "list" {
					t.Errorf("unexpected %s %s", a.GetVerb(), a.GetResource().Resource)
				}
			}
			for _, a := range cs.Actions() {
				if a.GetResource().Resource == "pods" && !bare {
					t.Errorf("full pods listed without bare pods: owned pods are read as metadata only")
				}
			}
			return len(actions), inv
		}
		few, small := requests(3)
		many, big := requests(300)
		if few != many {
			t.Errorf("bare pod %v: %d requests for 3 workloads, %d for 300: requests must not grow with objects", bare, few, many)
		}
		extra := 0
		if bare {
			extra = 1
		}
		if len(small.Workloads) != 3+extra || len(big.Workloads) != 300+extra || len(big.Pods) != 300+extra {
			t.Errorf("bare pod %v: owned ReplicaSets and pods must be reported through their Deployment, bare pods as workloads: %d/%d workloads, %d pods",
				bare, len(small.Workloads), len(big.Workloads), len(big.Pods))
		}
		if bare && len(big.Workloads[len(big.Workloads)-1].Template.Spec.Containers) != 1 {
			t.Errorf("a bare pod audited as a workload needs its spec: %+v", big.Workloads[len(big.Workloads)-1])
		}
	}
}

// What no check reads but dominates objects applied with kubectl is dropped
// before the inventory keeps them.
func TestTrimDropsManagedFieldsAndLastApplied(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{
		Annotations:   map[string]string{corev1.LastAppliedConfigAnnotation: "{...}", "keep": "me"},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
	}}
	trim(svc)
	if len(svc.ManagedFields) != 0 || len(svc.Annotations) != 1 || svc.Annotations["keep"] != "me" {
		t.Errorf("trim left %+v", svc.ObjectMeta)
	}
}

// A pods list that fails part way (a later page refused: an expired
// continue token, a timeout) makes the pods input unavailable with its
// own reason, and audits none of the bare pods its first pages showed:
// which ones would depend on where the list broke. The workloads are
// still audited.
func TestPodsListFailingPartWayAuditsNoBarePods(t *testing.T) {
	cs, md := fakeCluster(3, true)
	pages := 0
	md.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if pages++; pages == 1 {
			bare := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
				ObjectMeta: metav1.ObjectMeta{Name: "debug", Namespace: "shop", Labels: map[string]string{"app": "debug"}}}
			// The fake metadata client turns a metav1.List into its page.
			return true, &metav1.List{ListMeta: metav1.ListMeta{Continue: "page-2"},
				Items: []runtime.RawExtension{{Object: bare}}}, nil
		}
		return true, nil, apierrors.NewResourceExpired("the continue token expired")
	})
	inv := &inspect.Inventory{Live: true}
	l := newLister(context.Background(), cs, md, "shop", LiveOptions{}, inv)
	if err := l.lists("", labels.Everything()); err != nil {
		t.Fatal(err)
	}
	for _, w := range inv.Workloads {
		if w.Object.Kind == "Pod" {
			t.Errorf("the bare pod of the first page was audited although the pods list failed: %s", w.Object)
		}
	}
	if len(inv.Workloads) != 3 {
		t.Errorf("%d workloads, want the 3 Deployments", len(inv.Workloads))
	}
	if reason := inv.Unavailable[inspect.InputPods]; !strings.Contains(reason, "continue token expired") {
		t.Errorf("pods input: %q, want the list's own error", reason)
	}
	for _, a := range cs.Actions() {
		if a.GetResource().Resource == "pods" {
			t.Errorf("full pods were listed after the pods list failed")
		}
	}
}
