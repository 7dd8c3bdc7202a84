package drain_test

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// A dry run of a node's drain, as `drain node NODE --dry-run -o json`:
// the Drainer reads the node, its pods, their budgets and the caller's
// permissions, and stops after the preflight. Here two Ready pods of web,
// whose PodDisruptionBudget allows no disruption, would block it. A fake
// clientset stands in for the cluster (it allows every
// SelfSubjectAccessReview); a program passes its own client.
func Example() {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}
	objects := []runtime.Object{node, &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", Generation: 1},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromInt32(2)),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
		Status: policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 1, ExpectedPods: 2,
			CurrentHealthy: 2, DesiredHealthy: 2, DisruptionsAllowed: 0},
	}}
	for _, name := range []string{"web-7d4b9c-a1", "web-7d4b9c-b2"} {
		objects = append(objects, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, Labels: map[string]string{"app": "web"},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-7d4b9c", Controller: ptr.To(true)}}},
			Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning,
				Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
		})
	}
	client := fake.NewClientset(objects...)
	client.PrependReactor("create", "selfsubjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		review := a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview)
		review.Status.Allowed = true
		return true, review, nil
	})

	d := &drain.Drainer{Client: client, DryRun: true, Flags: preflight.Flags{IgnoreDaemonSets: true}}
	res, err := d.Drain(context.Background(), node)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Outcome, res.Preflight.PodCount(), "pod(s) to evict")
	for _, b := range res.Preflight.Blockers {
		fmt.Println("blocker:", b.Kind, b.PDB)
	}
	fmt.Println(res.Preflight.Verdict)
	// Output:
	// dry-run 2 pod(s) to evict
	// blocker: pdb-allows-none shop/web
	// would block: pdb-allows-none (PDB shop/web); a drain cordons the node and retries until Ctrl-C (no --timeout)
}
