package preflight_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// Say what a drain of node-a would do and what would block it, as `drain
// node node-a --dry-run` does: the two Ready pods of Deployment web are
// both on node-a and its PodDisruptionBudget keeps both, and a pod no
// controller owns needs --force. A program fills the Input with Gather;
// here it is built in memory, and Check reads nothing else.
func ExampleCheck() {
	ready := corev1.PodStatus{Phase: corev1.PodRunning,
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}
	pod := func(name string, owner ...metav1.OwnerReference) corev1.Pod {
		return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name,
			Labels: map[string]string{"app": "web"}, OwnerReferences: owner},
			Spec: corev1.PodSpec{NodeName: "node-a", TerminationGracePeriodSeconds: ptr.To[int64](30)}, Status: ready}
	}
	rs := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-5f6d8", Controller: ptr.To(true)}
	pods := []corev1.Pod{pod("web-5f6d8-a", rs), pod("web-5f6d8-b", rs), pod("debug")}
	nodeA := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}}
	budget := policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromInt32(2)),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
		Status: policyv1.PodDisruptionBudgetStatus{CurrentHealthy: 2, DesiredHealthy: 2, ExpectedPods: 2}}

	r := preflight.Check(preflight.Input{Node: &nodeA, Nodes: []corev1.Node{nodeA},
		Pods: pods, NamespacePods: pods, PDBs: []policyv1.PodDisruptionBudget{budget},
		RSOwners: map[string]preflight.OwnerRef{"shop/web-5f6d8": {Kind: "Deployment", Name: "web"}},
		Flags:    preflight.Flags{GracePeriodSeconds: -1}})
	for _, g := range r.Evict {
		fmt.Println("evicts", len(g.Pods), "pod(s) of", g.Owner)
	}
	for _, b := range r.Budgets {
		fmt.Println("budget", b.Name+":", b.Plan)
	}
	for _, b := range r.Blockers {
		fmt.Println("blocker", b.Kind, "refuses:", b.Refuses)
	}
	fmt.Println(r.Verdict)
	// Output:
	// evicts 2 pod(s) of Deployment/web
	// budget web: blocked
	// blocker needs-force refuses: true
	// blocker pdb-no-room-elsewhere refuses: false
	// would not start: needs-force (pod shop/debug), pdb-no-room-elsewhere (PDB shop/web)
}
