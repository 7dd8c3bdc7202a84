package inspect

import (
	"cmp"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// summarizeReading fills the counts of what the audit read in its own way:
// generic workloads and objects not audited, so that nothing is skipped
// silently.
func summarizeReading(inv *Inventory, s *Summary) {
	for _, w := range inv.Workloads {
		if w.Generic {
			s.Generic++
		}
	}
	s.NotAudited = []NotAudited{}
	for k, n := range inv.NotAudited {
		k.Count = n
		s.NotAudited = append(s.NotAudited, k)
	}
	slices.SortFunc(s.NotAudited, func(a, b NotAudited) int {
		return cmp.Or(cmp.Compare(a.Reason, b.Reason), cmp.Compare(a.Message, b.Message))
	})
}

// AddGenericWorkload files u, an object of a kind the checks do not read
// (Argo Rollout, OpenKruise CloneSet, ReplicationController), through its
// pod template at spec.template, with a note that says so; its
// spec.replicas, when it has one, is its replica count. added is false,
// and nothing is filed, when u has no pod template with containers; err
// says why spec.template could not be read as one.
func (inv *Inventory) AddGenericWorkload(u *unstructured.Unstructured, src *Source) (added bool, err error) {
	tplMap, found, _ := unstructured.NestedMap(u.Object, "spec", "template")
	containers, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
	if !found || len(containers) == 0 {
		return false, nil
	}
	var tpl corev1.PodTemplateSpec
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(tplMap, &tpl); err != nil {
		return false, fmt.Errorf("spec.template: %v", err)
	}
	var replicas *int32
	if r, ok, _ := unstructured.NestedInt64(u.Object, "spec", "replicas"); ok {
		v := int32(r)
		replicas = &v
	}
	inv.addGeneric(u.GetAPIVersion(), u.GetKind(), u.GetNamespace(), u.GetName(), u.GetAnnotations(), tpl, replicas, src)
	return true, nil
}

// addGeneric files a generic workload of pod template tpl and replicas
// (nil: none), with its note; apiVersion and kind are the object's own.
func (inv *Inventory) addGeneric(apiVersion, kind, namespace, name string, annotations map[string]string,
	tpl corev1.PodTemplateSpec, replicas *int32, src *Source) {
	inv.Objects++
	w := &Workload{
		Object:      ObjectRef{Kind: kind, Namespace: namespaceOf(namespace), Name: name},
		Source:      src,
		Annotations: annotations,
		Template:    tpl,
		Replicas:    replicas,
		Generic:     true,
		Group:       schema.FromAPIVersionAndKind(apiVersion, kind).Group,
	}
	inv.Workloads = append(inv.Workloads, w)
	inv.Notes = append(inv.Notes, fmt.Sprintf("%s %s (%s) is not a kind the audit reads: audited as a generic workload through spec.template%s",
		kind, w.Object.Namespace+"/"+name, apiVersion, replicasNote(replicas)))
}

// notAuditedCustom is the message of NotAuditedCustomResource.
const notAuditedCustom = "custom resources without a pod template (an operator may create pods from them; they are not seen)"

// AddCustomResource files u, an object of an API group the audit does not
// know (Add returned false for it): with a pod template, as a generic
// workload (AddGenericWorkload); without, counted in its namespace (an
// operator may create pods from it: a budget there that selects no pod is
// not reported) and as not audited. A workload it names in
// spec.scaleTargetRef, spec.targetRef or spec.workloadRef (a
// VerticalPodAutoscaler's targetRef) is said in a note: what the audit
// says of that workload may not hold.
func (inv *Inventory) AddCustomResource(u *unstructured.Unstructured, src *Source) error {
	inv.addUnreadReference(u)
	added, err := inv.AddGenericWorkload(u, src)
	if err != nil || added {
		return err
	}
	if inv.CustomResources == nil {
		inv.CustomResources = map[string]int{}
	}
	inv.CustomResources[u.GetNamespace()]++
	inv.Objects++
	inv.AddNotAudited(NotAuditedCustomResource, notAuditedCustom)
	return nil
}

func replicasNote(r *int32) string {
	if r == nil {
		return "; it has no spec.replicas, so replica checks do not apply"
	}
	return fmt.Sprintf(" and spec.replicas (%d)", *r)
}
