package inspect

// object is what some checks read alike of a workload and a
// PodDisruptionBudget.
type object struct {
	ref        ObjectRef
	source     *Source
	apiVersion string
	unknown    []UnknownField
	// skips are its SkipAnnotation values (a workload's own and its pod
	// template's).
	skips []string
}

// objects lists inv's workloads, then its PodDisruptionBudgets.
func (inv *Inventory) objects() []object {
	var out []object
	for _, w := range inv.Workloads {
		out = append(out, object{w.Object, w.Source, w.APIVersion, w.UnknownFields,
			[]string{w.Annotations[SkipAnnotation], w.Template.Annotations[SkipAnnotation]}})
	}
	for _, p := range inv.PDBs {
		out = append(out, object{pdbRef(p), p.Source, p.APIVersion, p.UnknownFields, []string{p.Annotations[SkipAnnotation]}})
	}
	return out
}

// perObject is the run of a check with at most one finding per workload
// or budget, about the object itself: f says it for o, or returns "".
func perObject(f func(s *scope, o object) (msg, fix string)) runFunc {
	return func(s *scope, c *Check) []Finding {
		var out []Finding
		for _, o := range s.inv.objects() {
			if msg, fix := f(s, o); msg != "" {
				out = append(out, c.objectFinding(o, msg, fix))
			}
		}
		return out
	}
}

// objectFinding builds a finding about o itself at the check's default
// severity.
func (c *Check) objectFinding(o object, msg, fix string) Finding {
	return Finding{Check: c.ID, Severity: c.Severity, Object: o.ref, Message: msg, Fix: fix, Source: o.source.at("", c.Field)}
}
