package inspect

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// IntegerBudget is an integer minAvailable for a budget whose
// maxUnavailable or percentage minAvailable the disruption controller
// cannot compute (pdb-custom-resource-without-scale).
type IntegerBudget struct {
	// MinAvailable keeps the budget's tolerance over Pods: the
	// desiredHealthy the controller would compute with Pods expected
	// (Pods minus maxUnavailable scaled with rounding up, at least 0; or
	// the percentage of Pods, rounded up), as getExpectedPodCount does.
	MinAvailable, Pods int32
	// Basis says where Pods came from or, when it is unknown, why.
	Basis string
}

// IntegerMinAvailable returns the integer minAvailable that keeps budget
// p's tolerance without an expected pod count, and false, with why in
// Basis, when the pods' count is unknown. The count is the pods the
// budget selects, live, or the spec.replicas of the workloads it selects,
// from files. p must point into inv.PDBs.
func (inv *Inventory) IntegerMinAvailable(p *PDB) (IntegerBudget, bool) {
	for i := range inv.PDBs {
		if &inv.PDBs[i] == p {
			return (&scope{inv: inv, opts: DefaultOptions()}).integerMinAvailable(i)
		}
	}
	return IntegerBudget{Basis: "the budget is not in the inventory"}, false
}

func (s *scope) integerMinAvailable(i int) (IntegerBudget, bool) {
	p := s.inv.PDBs[i]
	n, basis, ok := s.podCount(i)
	b := IntegerBudget{Pods: int32(n), Basis: basis}
	if !ok {
		return b, false
	}
	field, keep := p.Spec.MinAvailable, func(v int) int { return v }
	if p.Spec.MaxUnavailable != nil {
		field, keep = p.Spec.MaxUnavailable, func(v int) int { return max(n-v, 0) }
	}
	v, err := intstr.GetScaledValueFromIntOrPercent(field, n, true)
	if err != nil {
		b.Basis = err.Error()
		return b, false
	}
	b.MinAvailable = int32(keep(v))
	return b, true
}

// podCount is the number of pods budget i covers: live, the pods it
// selects now; from files, the sum of the selected workloads'
// spec.replicas. It says where the number came from, or why it is
// unknown.
func (s *scope) podCount(i int) (int, string, bool) {
	if s.inv.Live {
		if reason, unavailable := s.inv.Unavailable[InputPods]; unavailable {
			return 0, "the number of pods is unknown: the pods could not be read (" + reason + ")", false
		}
		n := len(s.selectedPods(i))
		if n == 0 {
			return 0, "the number of pods is unknown: the budget selects no pod now", false
		}
		return n, fmt.Sprintf("the %d pods it selects now", n), true
	}
	ws := s.workloadsFor(s.inv.PDBs[i])
	if len(ws) == 0 {
		return 0, "the number of pods is unknown: the budget selects no workload of the input", false
	}
	n := 0
	var parts []string
	for _, w := range ws {
		if w.Replicas == nil {
			return 0, fmt.Sprintf("the number of pods is unknown: %s/%s sets no spec.replicas", w.Object.Kind, w.Object.Name), false
		}
		n += int(*w.Replicas)
		parts = append(parts, fmt.Sprintf("%s/%s spec.replicas %d", w.Object.Kind, w.Object.Name, *w.Replicas))
	}
	return n, fmt.Sprintf("%d pods (%s)", n, strings.Join(parts, ", ")), true
}
