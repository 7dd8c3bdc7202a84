package inspect

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// addCustomResourceDefinition records whether the kind a
// CustomResourceDefinition defines has a scale subresource in any of its
// versions; the definition itself is counted as an object, not as a
// workload nor a custom resource not audited. It returns false for any
// other object.
func (inv *Inventory) addCustomResourceDefinition(u *unstructured.Unstructured) bool {
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
	inv.SetScale(group, kind, scale)
	inv.Objects++
	return true
}

// SetScale records whether kind, of API group group ("" for the core
// group), has a scale subresource: read from its CustomResourceDefinition,
// or live from API discovery (a "<resource>/scale" beside the kind's
// resource).
func (inv *Inventory) SetScale(group, kind string, has bool) {
	if inv.CRDScale == nil {
		inv.CRDScale = map[string]bool{}
	}
	inv.CRDScale[group+"/"+kind] = has
}

var pdbCustomResourceNoScale = register(&Check{
	ID:       "pdb-custom-resource-without-scale",
	Field:    "spec.minAvailable,spec.maxUnavailable",
	Topic:    TopicBudgets,
	Severity: SeverityError,
	Summary:  "PodDisruptionBudget with maxUnavailable or a percentage over pods of a custom resource without a /scale subresource: the disruption controller cannot count expected pods, every eviction is refused",
	Needs:    []Input{InputPDBs},
	run: perPDB(func(s *scope, i int, p PDB) (string, string) {
		if !needsScale(p) {
			return "", ""
		}
		o, ok := s.ownerWithoutScale(i)
		if !ok {
			return "", ""
		}
		return fmt.Sprintf("%s over pods of %s, %s: the disruption controller cannot compute the expected pods (DisruptionAllowed=False, SyncFailed), so every eviction of them is refused",
			budgetField(p), o.name, o.why), s.scaleFix(i)
	}),
	Explanation: Explanation{
		Why: "For maxUnavailable, and for a percentage minAvailable, the disruption controller needs the expected number of pods, which it reads from the pods' controller: a Deployment, ReplicaSet, StatefulSet or ReplicationController, or any other kind through its /scale subresource. Pods whose controller is a custom resource without /scale (a KubeVirt VirtualMachineInstance, many operators' objects) leave it unable to count: the budget's status stays DisruptionAllowed=False with reason SyncFailed and every eviction is refused, so drains hang. " +
			"From files this is known when the CustomResourceDefinition is among the inputs; live, from API discovery (the resource of the pods' controller lists no /scale subresource), before any budget has failed.",
		Fix:    "Use an integer minAvailable (it needs no expected count): the pods' count minus what maxUnavailable allowed keeps the same tolerance (`audit --fix` writes it when the count is known). Or add the scale subresource to the CustomResourceDefinition.",
		Source: "disruption controller getExpectedScale and getScaleController (pkg/controller/disruption/disruption.go); API discovery, the \"Discovery API\" page of the Kubernetes documentation (/apis/GROUP/VERSION lists RESOURCE/scale); reported in kubevirt/kubevirt#18063",
	},
})

// scaleFix is the finding's fix for budget i: the patch to an integer
// minAvailable, with the value when the pods' count is known.
func (s *scope) scaleFix(i int) string {
	p := s.inv.PDBs[i]
	b, ok := s.integerMinAvailable(i)
	value, why := "N", fmt.Sprintf(" (N: the pods that must stay up; %s)", b.Basis)
	if ok {
		value, why = fmt.Sprint(b.MinAvailable), fmt.Sprintf(" (the same tolerance over %s)", b.Basis)
	}
	return fmt.Sprintf(`kubectl patch pdb %s -n %s --type=merge -p '{"spec":{"maxUnavailable":null,"minAvailable":%s}}'%s, or add the scale subresource to the CustomResourceDefinition`,
		p.Name, namespaceOf(p.Namespace), value, why)
}

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
