package fix

import (
	"fmt"
	"strings"

	"github.com/kubectl-graceful/kubectl-graceful/internal/prestop"
)

// Describe says what the change does, in one line: each preStop change
// and the grace period, before and after.
func (w *WorkloadPlan) Describe() string {
	var parts []string
	for _, c := range w.PreStops {
		how := prestop.HowExecSleep
		if c.Native {
			how = prestop.HowNativeSleep
		}
		part := fmt.Sprintf("preStop of %s: %s -> %s", c.Container, hookText(c.FromHow, c.FromSeconds), hookText(how, c.Seconds))
		if c.note != "" {
			part += " (" + c.note + ")"
		}
		parts = append(parts, part)
	}
	if w.GraceSeconds != nil {
		parts = append(parts, fmt.Sprintf("terminationGracePeriodSeconds %d -> %d", w.GraceFrom, *w.GraceSeconds))
	}
	for _, m := range w.Moves {
		parts = append(parts, m.describe())
	}
	return strings.Join(parts, "; ")
}

func hookText(how string, seconds int64) string {
	switch how {
	case prestop.HowNone:
		return "none"
	case prestop.HowNativeSleep:
		return fmt.Sprintf("sleep %d s", seconds)
	case prestop.HowExecSleep:
		return fmt.Sprintf("exec sleep %d s", seconds)
	}
	return how
}

// Describe says what the change does, in one line.
func (d *PDBPlan) Describe() string {
	var parts []string
	if d.MaxUnavailableOne {
		parts = append(parts, "maxUnavailable: 1 (one eviction at a time)")
	}
	if d.MinAvailable != nil {
		parts = append(parts, fmt.Sprintf("%s -> minAvailable: %d (needs no count of expected pods; the same tolerance over %s)", d.MinAvailableFrom, *d.MinAvailable, d.Integer.Basis))
	}
	if d.AlwaysAllow {
		parts = append(parts, "unhealthyPodEvictionPolicy: AlwaysAllow")
	}
	return strings.Join(parts, "; ")
}

// Describe says what the change does, in one line.
func (n *NewPDB) Describe() string {
	s := fmt.Sprintf("new PodDisruptionBudget %s: maxUnavailable: 1, the %s's selector", n.Name, n.For.Kind)
	if n.AlwaysAllow {
		s += ", unhealthyPodEvictionPolicy: AlwaysAllow"
	}
	return s
}
