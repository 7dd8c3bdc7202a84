package load

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// audited lists the built-in kinds inspect.Inventory.Add reads; others
// (ConfigMaps, Secrets, RBAC) are counted and never decoded.
var audited = map[schema.GroupKind]bool{
	{Group: "apps", Kind: "Deployment"}:                     true,
	{Group: "apps", Kind: "StatefulSet"}:                    true,
	{Group: "apps", Kind: "DaemonSet"}:                      true,
	{Group: "apps", Kind: "ReplicaSet"}:                     true,
	{Group: "", Kind: "Pod"}:                                true,
	{Group: "batch", Kind: "Job"}:                           true,
	{Group: "batch", Kind: "CronJob"}:                       true,
	{Group: "", Kind: "Service"}:                            true,
	{Group: "policy", Kind: "PodDisruptionBudget"}:          true,
	{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}: true,
	{Group: "networking.k8s.io", Kind: "Ingress"}:           true,
}

// Messages of the reasons an object is counted as not audited
// (inspect.Inventory.NotAudited).
const (
	notAuditedCustom      = "custom resources without a pod template (an operator may create pods from them; they are not seen)"
	notAuditedUnparseable = "documents that do not parse, of kinds the audit does not read"
)

// addForeign files an object of an API group the client library does not
// know. One with a pod template at spec.template.spec.containers (Argo
// Rollouts, OpenKruise CloneSets, Knative-like Services) is audited as a
// generic workload; others are counted as not audited. One that names a
// workload (a VerticalPodAutoscaler's targetRef) is said in a note.
func addForeign(inv *inspect.Inventory, u *unstructured.Unstructured, src *inspect.Source, where string) error {
	inv.AddUnreadReference(u)
	added, err := addGeneric(inv, u, src, where)
	if err != nil || added {
		return err
	}
	inv.AddCustomResource(u.GetNamespace())
	inv.AddNotAudited(inspect.NotAuditedCustomResource, notAuditedCustom)
	return nil
}

// addGeneric audits u through its pod template when it has one at
// spec.template.spec.containers (a custom resource, or a built-in kind the
// checks do not read such as a ReplicationController); added is false when
// it has none.
func addGeneric(inv *inspect.Inventory, u *unstructured.Unstructured, src *inspect.Source, where string) (added bool, err error) {
	tplMap, found, _ := unstructured.NestedMap(u.Object, "spec", "template")
	containers, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
	if !found || len(containers) == 0 {
		return false, nil
	}
	var tpl corev1.PodTemplateSpec
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(tplMap, &tpl); err != nil {
		return false, fmt.Errorf("%s: spec.template: %v", where, err)
	}
	var replicas *int32
	if r, ok, _ := unstructured.NestedInt64(u.Object, "spec", "replicas"); ok {
		v := int32(r)
		replicas = &v
	}
	inv.AddGenericWorkload(u.GetAPIVersion(), u.GetKind(), u.GetNamespace(), u.GetName(), u.GetAnnotations(), tpl, replicas, src)
	return true, nil
}
