package fix

import "github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"

// PDBPlan is the change to one PodDisruptionBudget.
type PDBPlan struct {
	Object inspect.ObjectRef
	Source *inspect.Source
	// MaxUnavailableOne replaces minAvailable or maxUnavailable with
	// maxUnavailable: 1, so the budget allows one eviction at a time.
	MaxUnavailableOne bool
	// AlwaysAllow sets unhealthyPodEvictionPolicy: AlwaysAllow.
	AlwaysAllow bool
	// MinAvailable, when set, replaces maxUnavailable or a percentage
	// minAvailable (MinAvailableFrom, the field and its value) with the
	// integer minAvailable of Integer, which needs no expected pod count
	// (pods of a controller without /scale).
	MinAvailable     *int32
	MinAvailableFrom string
	Integer          inspect.IntegerBudget
	Fixes            []inspect.Finding
}

// NewPDB is a PodDisruptionBudget to add after the workload's document,
// selecting its pods with the workload's own spec.selector.
type NewPDB struct {
	// For is the workload it protects.
	For    inspect.ObjectRef
	Source *inspect.Source
	// Name is the budget's name: the workload's, or with -pdb when taken.
	Name string
	// AlwaysAllow sets unhealthyPodEvictionPolicy: AlwaysAllow (the
	// field is on by default from Kubernetes 1.27).
	AlwaysAllow bool
	// Labels are the pod template's labels, which select the workload's
	// pods, for the live create command (the inventory keeps no selector).
	Labels map[string]string
	Fixes  []inspect.Finding
}

// planPDB adds the change for budget d (of inv) for its findings fs.
func (p *Plan) planPDB(inv *inspect.Inventory, d *inspect.PDB, fs []inspect.Finding) {
	pp := &PDBPlan{Object: pdbRef(*d), Source: d.Source}
	for _, f := range fs {
		switch f.Check {
		case checkPDBWithoutScale:
			if !pp.integerMinAvailable(inv, d) {
				p.manual(f, pp.Integer.Basis)
				continue
			}
		case checkPDBBlocksEviction:
			pp.MaxUnavailableOne = true
		case checkPDBUnhealthyEviction:
			pp.AlwaysAllow = true
		case checkUnknownField:
			p.manual(f, reasonUnknownField)
			continue
		default:
			p.manual(f, "")
			continue
		}
		pp.Fixes = append(pp.Fixes, f)
	}
	if pp.MinAvailable != nil {
		// maxUnavailable is what the controller cannot compute here: the
		// integer minAvailable replaces it, allowing one eviction at least
		// when the budget also blocked every one.
		if pp.MaxUnavailableOne && *pp.MinAvailable > 0 && *pp.MinAvailable >= pp.Integer.Pods {
			*pp.MinAvailable = pp.Integer.Pods - 1
			pp.Integer.Basis += ", less one so that one eviction is allowed"
		}
		pp.MaxUnavailableOne = false
	}
	if pp.MaxUnavailableOne || pp.AlwaysAllow || pp.MinAvailable != nil {
		p.PDBs = append(p.PDBs, pp)
	}
}

// integerMinAvailable plans d's integer minAvailable; false, with why in
// Integer.Basis, when the pods' count is unknown.
func (pp *PDBPlan) integerMinAvailable(inv *inspect.Inventory, d *inspect.PDB) bool {
	b, ok := inv.IntegerMinAvailable(d)
	pp.Integer = b
	if !ok {
		return false
	}
	n := b.MinAvailable
	pp.MinAvailable = &n
	pp.MinAvailableFrom = "minAvailable " + d.Spec.MinAvailable.String()
	if d.Spec.MaxUnavailable != nil {
		pp.MinAvailableFrom = "maxUnavailable " + d.Spec.MaxUnavailable.String()
	}
	return true
}

// planNewPDB adds a budget for workload w (a pdb-missing finding f). Only
// kinds with a spec.selector get one.
func (p *Plan) planNewPDB(w *inspect.Workload, f inspect.Finding, opts Options, names map[string]bool) {
	switch w.Object.Kind {
	case "Deployment", "StatefulSet", "ReplicaSet":
	default:
		p.manual(f, "only Deployments, StatefulSets and ReplicaSets have a selector to copy")
		return
	}
	p.NewPDBs = append(p.NewPDBs, &NewPDB{
		For:         w.Object,
		Source:      w.Source,
		Name:        freeName(names, w.Object.Namespace, w.Object.Name),
		AlwaysAllow: opts.Version.AtLeast(1, 27) && opts.fixes(checkPDBUnhealthyEviction),
		Labels:      w.Template.Labels,
		Fixes:       []inspect.Finding{f},
	})
}
