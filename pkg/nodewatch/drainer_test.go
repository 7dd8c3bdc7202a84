package nodewatch

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestWhoDrains(t *testing.T) {
	node := func(unschedulable bool, annotations map[string]string, taints ...corev1.Taint) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "w-1", Annotations: annotations},
			Spec: corev1.NodeSpec{Unschedulable: unschedulable, Taints: taints}}
	}
	deleting := func(*corev1.Node) string { return "the Machine's nodeDrainTimeout 10m0s" }
	unread := func(*corev1.Node) string { return "" }
	claim := func(*corev1.Node) string { return "NodeClaim c-1's terminationGracePeriod 1h" }
	capi := map[string]string{capiMachineAnnotation: "m-1", capiNamespaceAnnotation: "default"}
	cases := []struct {
		name  string
		node  *corev1.Node
		facts drainerFacts
		want  string // "" = no drainer named
	}{
		{"schedulable, unmarked", node(false, nil), drainerFacts{}, ""},
		{"cluster-autoscaler", node(true, nil, corev1.Taint{Key: caToBeDeletedTaint, Value: "1700000000", Effect: corev1.TaintEffectNoSchedule}), drainerFacts{},
			"node w-1: drained by cluster-autoscaler (taint ToBeDeletedByClusterAutoscaler) since 22:13:20Z; deadline: each pod's grace period is capped at 600 s, cluster-autoscaler's default"},
		{"karpenter", node(true, nil, corev1.Taint{Key: karpenterDisruptedTaint, Effect: corev1.TaintEffectNoSchedule}), drainerFacts{nodeClaimDeadline: claim},
			"node w-1: drained by karpenter (taint karpenter.sh/disrupted); deadline: NodeClaim c-1's terminationGracePeriod 1h"},
		{"node-termination-handler spot", node(true, nil, corev1.Taint{Key: "aws-node-termination-handler/spot-itn", Value: "id", Effect: corev1.TaintEffectNoSchedule}), drainerFacts{},
			"drained by aws-node-termination-handler (taint aws-node-termination-handler/spot-itn); deadline: a spot interruption"},
		{"kured", node(true, nil), drainerFacts{kuredHolder: kuredLockHolder(`{"nodeID":"w-1","created":"2026-01-01T00:00:00Z"}`, "w-1")},
			"drained by kured (the weave.works/kured-node-lock lock on DaemonSet kube-system/kured names this node)"},
		{"kured, several locks", node(true, nil), drainerFacts{kuredHolder: kuredLockHolder(`{"maxOwners":2,"locks":[{"nodeID":"w-2"},{"nodeID":"w-1"}]}`, "w-1")},
			"drained by kured"},
		{"kured holds another node", node(true, nil), drainerFacts{kuredHolder: kuredLockHolder(`{"nodeID":"w-9"}`, "w-1")},
			"node w-1: cordoned by someone (no drainer's marks); deadline: unknown"},
		{"cluster api, Machine deleting", node(true, capi), drainerFacts{machineDeadline: deleting},
			"drained by cluster-api (Machine default/m-1 is being deleted); deadline: the Machine's nodeDrainTimeout 10m0s"},
		{"cluster api, Machine not read", node(true, capi), drainerFacts{machineDeadline: unread},
			"node w-1: cordoned by someone (no drainer's marks); deadline: unknown"},
		{"plain cordon", node(true, nil), drainerFacts{}, "node w-1: cordoned by someone (no drainer's marks); deadline: unknown"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, ok := whoDrains(c.node, c.facts)
			switch {
			case c.want == "" && ok:
				t.Fatalf("named %q for a node without marks", d)
			case c.want != "" && (!ok || !strings.Contains(d.String(), c.want)):
				t.Fatalf("got %q (%v), want it to hold %q", d, ok, c.want)
			}
		})
	}
}
