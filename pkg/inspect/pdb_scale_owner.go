package inspect

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// countedItself are the controllers ("group/Kind") whose pods the
// disruption controller counts from the controller's own spec; for any
// other controller it asks the /scale subresource (pkg/controller/
// disruption/disruption.go, finders and getScaleController).
var countedItself = map[string]bool{
	"/ReplicationController": true, "apps/ReplicaSet": true, "apps/Deployment": true, "apps/StatefulSet": true,
}

// discoveredNoScale says how a live audit knows a kind has no /scale.
const discoveredNoScale = "whose API serves no /scale subresource for that kind (API discovery)"

// noScaleOwner is a controller whose kind has no /scale subresource: its
// name for the message ("VM/vm", "VM/vm-0 (example.io/v1)") and why its
// lack of /scale is known.
type noScaleOwner struct{ name, why string }

// ownerWithoutScale returns a controller of the pods budget i covers that
// has no /scale subresource: from files, a custom resource the budget's
// selector matches whose CustomResourceDefinition is among the inputs;
// live, the controller of a pod the budget selects, as API discovery
// answered for its kind (ScaleQuestions, SetScale).
func (s *scope) ownerWithoutScale(i int) (noScaleOwner, bool) {
	p := s.inv.PDBs[i]
	for _, w := range s.workloadsFor(p) {
		key := w.Group + "/" + w.Object.Kind
		if scale, known := s.inv.CRDScale[key]; w.Generic && known && !scale {
			why := fmt.Sprintf("whose CustomResourceDefinition (%s) has no /scale subresource", strings.TrimPrefix(key, "/"))
			if s.inv.Live {
				why = discoveredNoScale
			}
			return noScaleOwner{name: w.Object.Kind + "/" + w.Object.Name, why: why}, true
		}
	}
	for _, pi := range s.selectedPods(i) {
		pod := s.inv.Pods[pi]
		gvk, ok := scaleCounted(pod)
		if scale, known := s.inv.CRDScale[gvk.Group+"/"+gvk.Kind]; ok && known && !scale {
			return noScaleOwner{name: fmt.Sprintf("%s/%s (%s)", pod.ControllerKind, pod.ControllerName, pod.ControllerAPIVersion),
				why: discoveredNoScale}, true
		}
	}
	return noScaleOwner{}, false
}

// selectedPods returns the positions in inv.Pods (live pods) of the pods
// budget i selects.
func (s *scope) selectedPods(i int) []int {
	x := s.index()
	var out []int
	for _, pi := range x.pods[namespaceOf(s.inv.PDBs[i].Namespace)] {
		if x.pdbSel[i].Matches(labels.Set(s.inv.Pods[pi].Labels)) {
			out = append(out, pi)
		}
	}
	return out
}

// scaleCounted returns the group, version and kind of pod's controller
// when the disruption controller counts its pods through /scale.
func scaleCounted(pod PodLabels) (schema.GroupVersionKind, bool) {
	if pod.ControllerKind == "" {
		return schema.GroupVersionKind{}, false
	}
	gv, err := schema.ParseGroupVersion(pod.ControllerAPIVersion)
	if err != nil || countedItself[gv.Group+"/"+pod.ControllerKind] {
		return schema.GroupVersionKind{}, false
	}
	return gv.WithKind(pod.ControllerKind), true
}

// ScaleQuestions returns the kinds (with the API version their pods'
// controller reference names) whose scale subresource the audit needs to
// know and does not: the controllers of live pods selected by a
// PodDisruptionBudget with maxUnavailable or a percentage minAvailable,
// other than the kinds the disruption controller counts itself. The
// caller answers each with SetScale, from API discovery; a kind left
// unanswered is not reported on.
func (inv *Inventory) ScaleQuestions() []schema.GroupVersionKind {
	s := &scope{inv: inv, opts: DefaultOptions()}
	var out []schema.GroupVersionKind
	for i, p := range inv.PDBs {
		if !needsScale(p) {
			continue
		}
		for _, pi := range s.selectedPods(i) {
			gvk, ok := scaleCounted(inv.Pods[pi])
			if _, known := inv.CRDScale[gvk.Group+"/"+gvk.Kind]; !ok || known || slices.Contains(out, gvk) {
				continue
			}
			out = append(out, gvk)
		}
	}
	return out
}
