package inspect

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// unreadRef is an object of a kind the audit does not read that names a
// workload in one of refFields: a VerticalPodAutoscaler, a custom
// autoscaler, a progressive-delivery controller. It may change the
// workload's replicas or pods in ways the audit does not judge.
type unreadRef struct {
	Kind, Namespace, Name  string
	Field                  string
	TargetKind, TargetName string
}

// refFields are the spec fields by which autoscalers and rollout
// controllers name the workload they act on: scaleTargetRef (HPA, KEDA
// and custom autoscalers), targetRef (VerticalPodAutoscaler, Flagger
// Canary), workloadRef (Argo Rollouts).
var refFields = []string{"scaleTargetRef", "targetRef", "workloadRef"}

// addUnreadReference records u, an object of a kind the audit does not
// read, when it names a workload in spec.scaleTargetRef, spec.targetRef
// or spec.workloadRef (kind and name): the report says, once, that the
// workload's meaning may be changed by it. It does not count u.
func (inv *Inventory) addUnreadReference(u *unstructured.Unstructured) {
	for _, f := range refFields {
		kind, _, _ := unstructured.NestedString(u.Object, "spec", f, "kind")
		name, _, _ := unstructured.NestedString(u.Object, "spec", f, "name")
		if kind != "" && name != "" {
			inv.unreadRefs = append(inv.unreadRefs, unreadRef{Kind: u.GetKind(), Namespace: namespaceOf(u.GetNamespace()), Name: u.GetName(),
				Field: "spec." + f, TargetKind: kind, TargetName: name})
			return
		}
	}
}

// unreadRefNotes says, in one line each, where an object the audit does
// not read names an audited workload: what the audit says of the workload
// may not hold.
func unreadRefNotes(inv *Inventory) []string {
	var out []string
	for _, r := range inv.unreadRefs {
		for _, w := range inv.Workloads {
			if w.Object == (ObjectRef{Kind: r.TargetKind, Namespace: r.Namespace, Name: r.TargetName}) {
				out = append(out, fmt.Sprintf("%s %s/%s names %s %s/%s (%s), and the audit does not read that kind: what it changes in the workload's replicas or pods is not judged",
					r.Kind, r.Namespace, r.Name, w.Object.Kind, w.Object.Namespace, w.Object.Name, r.Field))
			}
		}
	}
	return out
}
