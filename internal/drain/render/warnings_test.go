package render

import (
	"bytes"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// Three pods of one StatefulSet with the same two audit findings give
// two warnings, each naming the workload and its three pods, not six
// lines that name none; the report keeps one warning a pod (-o json).
func TestPreflightAuditWarningsByWorkload(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}
	var pods []corev1.Pod
	for _, name := range []string{"web-0", "web-1", "web-2"} {
		pods = append(pods, corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "web", Controller: new(true)}}},
			Spec: corev1.PodSpec{NodeName: "n1"}, Status: corev1.PodStatus{Phase: corev1.PodRunning}})
	}
	pods = append(pods, corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "bare", Namespace: "shop"},
		Spec: corev1.PodSpec{NodeName: "n1"}, Status: corev1.PodStatus{Phase: corev1.PodRunning}})
	r := preflight.Check(preflight.Input{Node: node, Nodes: []corev1.Node{*node}, Pods: pods, NamespacePods: pods,
		Flags:       preflight.Flags{GracePeriodSeconds: -1, Force: true},
		PodWarnings: func(*corev1.Pod) []string { return []string{"no preStop hook", "grace period 0"} }})
	n := 0
	for _, w := range r.Warnings {
		if w.Kind == preflight.WarningTerminationAudit && w.Pod != "" {
			n++
		}
	}
	if n != 8 {
		t.Errorf("%d termination-audit warnings in the report, want one a pod and finding (8)", n)
	}
	var b bytes.Buffer
	Preflight(&b, r, 0)
	out := b.String()
	for _, want := range []string{
		"[termination-audit] shop/StatefulSet/web (pods web-0, web-1, web-2): loses requests when evicted: no preStop hook\n",
		"[termination-audit] shop/StatefulSet/web (pods web-0, web-1, web-2): loses requests when evicted: grace period 0\n",
		"[termination-audit] shop/bare: loses requests when evicted: no preStop hook\n",
	} {
		if strings.Count(out, want) != 1 {
			t.Errorf("output has %q %d times, want once:\n%s", want, strings.Count(out, want), out)
		}
	}
	if n := strings.Count(out, "[termination-audit]"); n != 4 {
		t.Errorf("%d termination-audit lines, want 4:\n%s", n, out)
	}
}
