package inspect

import (
	"cmp"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// InputScaledObjects is KEDA's scaledobjects.keda.sh.
const InputScaledObjects Input = "scaledobjects.keda.sh"

// InputRollouts is Argo Rollouts' rollouts.argoproj.io.
const InputRollouts Input = "rollouts.argoproj.io"

// Kinds of the objects that set a workload's replica floor.
const (
	kindHPA          = "HorizontalPodAutoscaler"
	kindScaledObject = "ScaledObject"
)

// scalingResources are the custom resources that set a workload's
// replicas or pod template, read by a live audit where the cluster serves
// them: KEDA ScaledObjects, Argo Rollouts (those with a workloadRef).
var scalingResources = []customResource{
	{schema.GroupVersionResource{Group: "keda.sh", Version: "v1alpha1", Resource: "scaledobjects"}, InputScaledObjects},
	{schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "rollouts"}, InputRollouts},
}

// workloadRef is an Argo Rollout whose pod template is a Deployment's
// (spec.workloadRef) and whose replicas are its own.
type workloadRef struct {
	Namespace, Name string
	Source          *Source
	Annotations     map[string]string
	// TargetKind and TargetName name the object whose template it runs.
	TargetKind, TargetName string
	Replicas               int32
}

// addScalingObject files a KEDA ScaledObject (its scaleTargetRef, and
// minReplicaCount, default 0, as the floor) or an Argo Rollout with a
// spec.workloadRef and no template of its own. It returns false for any
// other object (a Rollout with a template is a generic workload).
// Sources: KEDA ScaledObject spec (keda.sh/v1alpha1), Argo Rollouts
// "Rollout: workloadRef" (docs/features/specification.md).
func (inv *Inventory) addScalingObject(u *unstructured.Unstructured, src *Source) bool {
	gvk := u.GroupVersionKind()
	switch {
	case gvk.Group == "keda.sh" && gvk.Kind == kindScaledObject:
		kind, _, _ := unstructured.NestedString(u.Object, "spec", "scaleTargetRef", "kind")
		name, _, _ := unstructured.NestedString(u.Object, "spec", "scaleTargetRef", "name")
		kind = cmp.Or(kind, "Deployment") // KEDA's default
		min, _, _ := unstructured.NestedInt64(u.Object, "spec", "minReplicaCount")
		inv.HPAs = append(inv.HPAs, HPA{Kind: kindScaledObject, Namespace: u.GetNamespace(), Name: u.GetName(),
			TargetKind: kind, TargetName: name, MinReplicas: int32(min)})
	case gvk.Group == "argoproj.io" && gvk.Kind == "Rollout":
		ref, found, _ := unstructured.NestedMap(u.Object, "spec", "workloadRef")
		if _, tpl, _ := unstructured.NestedMap(u.Object, "spec", "template"); !found || tpl {
			return false
		}
		r := int64(1)
		if v, ok, _ := unstructured.NestedInt64(u.Object, "spec", "replicas"); ok {
			r = v
		}
		kind, _ := ref["kind"].(string)
		name, _ := ref["name"].(string)
		inv.workloadRefs = append(inv.workloadRefs, workloadRef{Namespace: namespaceOf(u.GetNamespace()), Name: u.GetName(), Source: src,
			Annotations: u.GetAnnotations(), TargetKind: kind, TargetName: name, Replicas: int32(r)})
	default:
		return false
	}
	inv.Objects++
	return true
}

// resolveWorkloadRefs files each Rollout with a workloadRef as a generic
// workload of the referenced Deployment's pod template and the Rollout's
// replicas, once; one that names a workload not in the inventory is said
// in a note.
func (inv *Inventory) resolveWorkloadRefs() {
	for _, r := range inv.workloadRefs {
		var tpl *Workload
		for _, w := range inv.Workloads {
			if w.Object == (ObjectRef{Kind: r.TargetKind, Namespace: r.Namespace, Name: r.TargetName}) {
				tpl = w
			}
		}
		if tpl == nil {
			inv.Notes = append(inv.Notes, fmt.Sprintf("Rollout %s/%s runs the pod template of %s %s (workloadRef), which is not among the objects read: it is not audited",
				r.Namespace, r.Name, r.TargetKind, r.TargetName))
			continue
		}
		replicas := r.Replicas
		inv.Objects--
		inv.addGeneric("argoproj.io/v1alpha1", "Rollout", r.Namespace, r.Name, r.Annotations, tpl.Template, &replicas, r.Source)
		inv.Notes[len(inv.Notes)-1] = fmt.Sprintf("Rollout %s/%s runs the pod template of %s %s (workloadRef) with its own replicas (%d): audited as a generic workload",
			r.Namespace, r.Name, r.TargetKind, r.TargetName, replicas)
	}
	inv.workloadRefs = nil
}

// floorText names where a scaler's floor comes from, for messages.
func (h *HPA) floorText(n int32) string {
	if h.Kind == kindScaledObject {
		if h.MinReplicas == 0 {
			return fmt.Sprintf("minReplicaCount 0 of ScaledObject %s (%d when active)", h.Name, n)
		}
		return fmt.Sprintf("minReplicaCount %d of ScaledObject %s", n, h.Name)
	}
	return fmt.Sprintf("minReplicas %d of HorizontalPodAutoscaler %s", n, h.Name)
}

// floorSource says where w's replica floor comes from when it is not its
// own replicas: " (minReplicas of HorizontalPodAutoscaler web)".
func (s *scope) floorSource(w *Workload) string {
	h := s.hpaFor(w)
	switch {
	case h == nil:
		return ""
	case h.Kind == kindScaledObject:
		return " (minReplicaCount of ScaledObject " + h.Name + ")"
	}
	return " (minReplicas of HorizontalPodAutoscaler " + h.Name + ")"
}

// scalerNotes says, once per workload, where a neighbour object changes
// what its replicas mean and the audit reads it otherwise than its text:
// an HPA over a workload at replicas 0 does not scale it.
func scalerNotes(inv *Inventory) []string {
	var out []string
	for _, w := range inv.Workloads {
		if !atZero(w) {
			continue
		}
		for _, h := range inv.HPAs {
			if h.Kind == kindHPA && namespaceOf(h.Namespace) == w.Object.Namespace && h.TargetKind == w.Object.Kind && h.TargetName == w.Object.Name {
				out = append(out, fmt.Sprintf("HorizontalPodAutoscaler %s/%s does not scale %s/%s: its replicas are 0, at which the HPA controller disables scaling; its floor is read as 0, not minReplicas %d",
					w.Object.Namespace, h.Name, w.Object.Kind, w.Object.Name, h.MinReplicas))
			}
		}
	}
	return out
}
