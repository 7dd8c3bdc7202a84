package inspect

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// cordonTaint is the taint the node lifecycle controller mirrors a cordon
// (spec.unschedulable) into; the scheduler's NodeUnschedulable plugin
// lets a pod that tolerates it onto a cordoned node.
var cordonTaint = corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}

// ToleratesCordon returns the toleration of spec that lets its pods onto a
// cordoned node (node.kubernetes.io/unschedulable, or every taint: an
// operator Exists without a key), described as the manifest writes it;
// ok is false when there is none. Source: the scheduler's
// NodeUnschedulable filter (pkg/scheduler/framework/plugins/nodeunschedulable).
func ToleratesCordon(spec corev1.PodSpec) (toleration string, ok bool) {
	for _, t := range spec.Tolerations {
		if t.ToleratesTaint(klog.Background(), &cordonTaint, false) {
			if t.Key == "" {
				return "operator: Exists with no key (every taint)", true
			}
			return fmt.Sprintf("key: %s, operator: %s", t.Key, t.Operator), true
		}
	}
	return "", false
}

var toleratesCordon = register(&Check{
	ID:       "tolerates-cordon",
	Field:    "spec.tolerations",
	Topic:    TopicBudgets,
	Severity: SeverityWarning,
	Summary:  "pods tolerate node.kubernetes.io/unschedulable or every taint: a drain cannot keep their replacements off the cordoned node, and some drainers skip them",
	run: onePerWorkload(func(_ *scope, w *Workload) (string, string) {
		tol, ok := ToleratesCordon(w.Template.Spec)
		if !ok || w.Object.Kind == "DaemonSet" || w.Object.Kind == "Pod" { // not evicted by a drain, or not replaced
			return "", ""
		}
		return fmt.Sprintf("its pods tolerate a cordon (%s): when a node is drained, the scheduler may place their replacements back on the cordoned node, so the drain cannot empty it, and some drainers (Karpenter) skip such pods entirely", tol),
			"tolerate only the taints the pods need (list each key), not node.kubernetes.io/unschedulable nor every taint"
	}),
	Explanation: Explanation{
		Why: "A cordon marks the node unschedulable and the node lifecycle controller taints it node.kubernetes.io/unschedulable:NoSchedule; the scheduler keeps off only pods that do not tolerate that taint. A pod that tolerates it, or every taint (operator: Exists without a key), can have its replacement placed right back on the node being drained: the drain evicts it again, or ends with the node not empty. Some drainers do not evict such pods at all (Karpenter treats them as tolerating its disruption). " +
			"DaemonSet pods are left out: a drain skips them (--ignore-daemonsets).",
		Fix:    "Tolerate only the taints the pods need, each by key; never node.kubernetes.io/unschedulable or every taint for a workload that must leave drained nodes.",
		Source: "scheduler NodeUnschedulable plugin (pkg/scheduler/framework/plugins/nodeunschedulable); kubectl cordon (k8s.io/kubectl/pkg/drain, cordon.go); reported in kubernetes-sigs/karpenter#1839",
	},
})
