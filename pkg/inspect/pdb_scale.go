package inspect

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// AddCustomResourceDefinition records whether the kind a
// CustomResourceDefinition defines has a scale subresource in any of its
// versions; the definition itself is counted as an object, not as a
// workload nor a custom resource not audited. It returns false for any
// other object.
func (inv *Inventory) AddCustomResourceDefinition(u *unstructured.Unstructured) bool {
	gvk := u.GroupVersionKind()
	if gvk.Group != "apiextensions.k8s.io" || gvk.Kind != "CustomResourceDefinition" {
		return false
	}
	group, _, _ := unstructured.NestedString(u.Object, "spec", "group")
	kind, _, _ := unstructured.NestedString(u.Object, "spec", "names", "kind")
	versions, _, _ := unstructured.NestedSlice(u.Object, "spec", "versions")
	scale := false
	for _, v := range versions {
		if m, ok := v.(map[string]any); ok {
			if _, has, _ := unstructured.NestedMap(m, "subresources", "scale"); has {
				scale = true
			}
		}
	}
	if inv.CRDScale == nil {
		inv.CRDScale = map[string]bool{}
	}
	inv.CRDScale[group+"/"+kind] = scale
	inv.Objects++
	return true
}

var pdbCustomResourceNoScale = register(&Check{
	ID:       "pdb-custom-resource-without-scale",
	Field:    "spec.minAvailable,spec.maxUnavailable",
	Topic:    topicBudgets,
	Severity: SeverityError,
	Summary:  "PodDisruptionBudget with maxUnavailable or a percentage over pods of a custom resource without a /scale subresource: the disruption controller cannot count expected pods, every eviction is refused",
	Needs:    []Input{InputPDBs},
	run: func(s *scope, c *Check) []Finding {
		var out []Finding
		for _, p := range s.inv.PDBs {
			if !needsScale(p) {
				continue
			}
			for _, w := range s.workloadsFor(p) {
				scale, known := s.inv.CRDScale[w.Group+"/"+w.Object.Kind]
				if !w.Generic || !known || scale {
					continue
				}
				msg := fmt.Sprintf("%s over pods of %s/%s, whose CustomResourceDefinition (%s) has no /scale subresource: the disruption controller cannot compute the expected pods (DisruptionAllowed=False, SyncFailed), so every eviction of them is refused",
					budgetField(p), w.Object.Kind, w.Object.Name, strings.TrimPrefix(w.Group+"/"+w.Object.Kind, "/"))
				fix := fmt.Sprintf(`kubectl patch pdb %s -n %s --type=merge -p '{"spec":{"maxUnavailable":null,"minAvailable":N}}' (an integer N below the pods' count), or add the scale subresource to the CustomResourceDefinition`,
					p.Name, namespaceOf(p.Namespace))
				out = append(out, pdbFinding(c, p, msg, fix))
				break
			}
		}
		return out
	},
	Explanation: Explanation{
		Why: "For maxUnavailable, and for a percentage minAvailable, the disruption controller needs the expected number of pods, which it reads from the pods' controller: a Deployment, ReplicaSet, StatefulSet or ReplicationController, or any other kind through its /scale subresource. Pods whose controller is a custom resource without /scale (a KubeVirt VirtualMachineInstance, many operators' objects) leave it unable to count: the budget's status stays DisruptionAllowed=False with reason SyncFailed and every eviction is refused, so drains hang. " +
			"From files this is known when the CustomResourceDefinition is among the inputs; live, the budget's SyncFailed condition shows it (pdb-blocks-eviction).",
		Fix:    "Use an integer minAvailable (it needs no expected count), or add the scale subresource to the CustomResourceDefinition.",
		Source: "disruption controller getExpectedScale and getScaleController (pkg/controller/disruption/disruption.go); reported in kubevirt/kubevirt#18063",
	},
})

// needsScale reports whether p's spec needs the expected pod count: a
// maxUnavailable, or a percentage minAvailable.
func needsScale(p PDB) bool {
	if p.Spec.MaxUnavailable != nil {
		return true
	}
	return p.Spec.MinAvailable != nil && p.Spec.MinAvailable.Type == intstr.String
}

func budgetField(p PDB) string {
	if p.Spec.MaxUnavailable != nil {
		return "maxUnavailable " + p.Spec.MaxUnavailable.String()
	}
	return "minAvailable " + p.Spec.MinAvailable.String()
}
