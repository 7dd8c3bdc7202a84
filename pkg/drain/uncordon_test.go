package drain

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestUncordonPatch(t *testing.T) {
	lb := corev1.LabelNodeExcludeBalancers
	node := func(unschedulable bool, labels, annotations map[string]string) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "w-1", ResourceVersion: "7", Labels: labels, Annotations: annotations},
			Spec: corev1.NodeSpec{Unschedulable: unschedulable}}
	}
	ours := map[string]string{excludedFromLBAnnotation: "kubectl-graceful-drain-abcd1234"}
	cases := []struct {
		name string
		node *corev1.Node
		want UncordonResult
		body string
	}{
		{"schedulable, nothing", node(false, nil, nil), UncordonResult{Node: "w-1"}, ""},
		{"cordoned", node(true, nil, nil), UncordonResult{Node: "w-1", Uncordoned: true},
			`{"metadata":{"resourceVersion":"7"},"spec":{"unschedulable":null}}`},
		{"cordoned, our label", node(true, map[string]string{lb: "true"}, ours), UncordonResult{Node: "w-1", Uncordoned: true, LBLabelRemoved: true},
			`{"metadata":{"labels":{"node.kubernetes.io/exclude-from-external-load-balancers":null},"annotations":{"kubectl-graceful.dev/excluded-from-lb":null},"resourceVersion":"7"},"spec":{"unschedulable":null}}`},
		{"cordoned, someone else's label", node(true, map[string]string{lb: "true"}, nil),
			UncordonResult{Node: "w-1", Uncordoned: true, LBLabelKept: "not set by a drain of kubectl graceful (no kubectl-graceful.dev/excluded-from-lb annotation naming one)"},
			`{"metadata":{"resourceVersion":"7"},"spec":{"unschedulable":null}}`},
		{"a label under an annotation that names no drain", node(true, map[string]string{lb: "true"}, map[string]string{excludedFromLBAnnotation: "someone"}),
			UncordonResult{Node: "w-1", Uncordoned: true, LBLabelKept: "not set by a drain of kubectl graceful (no kubectl-graceful.dev/excluded-from-lb annotation naming one)"},
			`{"metadata":{"resourceVersion":"7"},"spec":{"unschedulable":null}}`},
		{"schedulable, our label left by a drain that failed", node(false, map[string]string{lb: "true"}, ours), UncordonResult{Node: "w-1", LBLabelRemoved: true},
			`{"metadata":{"labels":{"node.kubernetes.io/exclude-from-external-load-balancers":null},"annotations":{"kubectl-graceful.dev/excluded-from-lb":null},"resourceVersion":"7"}}`},
		{"our record without the label", node(false, nil, ours), UncordonResult{Node: "w-1"},
			`{"metadata":{"annotations":{"kubectl-graceful.dev/excluded-from-lb":null},"resourceVersion":"7"}}`},
	}
	for _, c := range cases {
		got, body := uncordonPatch(c.node)
		if got != c.want || body != c.body {
			t.Errorf("%s: got %+v %s\nwant %+v %s", c.name, got, body, c.want, c.body)
		}
	}
}
