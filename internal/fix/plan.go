package fix

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// DefaultShutdownSeconds is the app's shutdown time after SIGTERM (seconds)
// a fix plans for when neither inspect.ShutdownSecondsAnnotation nor
// Options.ShutdownSeconds declares one. It is larger than the audit's
// assumption on purpose: a grace period that is too long costs only a
// slower drain of a hung pod, one that is too short cuts requests.
const DefaultShutdownSeconds = 15

// GraceMarginSeconds is added to preStop + shutdown time when a fix sets
// terminationGracePeriodSeconds.
const GraceMarginSeconds = 5

// Options tune a plan. The zero Version is taken as current (1.30 or later).
type Options struct {
	// PreStopFloorSeconds is the shortest preStop delay (seconds) a fix
	// sets for a container behind a Service (the audit's --prestop-floor).
	PreStopFloorSeconds int64
	// ShutdownSeconds (seconds) is the app's shutdown time for workloads
	// without the annotation; nil means DefaultShutdownSeconds.
	ShutdownSeconds *int64
	// Version is the target Kubernetes version (--kube-version).
	Version inspect.Version
	// Only, when not empty, lists the only check IDs whose findings are
	// fixed (--fix-only); the others are left out of the plan.
	Only []string
	// Skip lists check IDs not fixed (--skip): a new budget gets no
	// unhealthyPodEvictionPolicy when pdb-unhealthy-eviction-policy is in it.
	Skip []string
}

// fixes reports whether findings of check are to be fixed.
func (o Options) fixes(check string) bool {
	return !slices.Contains(o.Skip, check) && (len(o.Only) == 0 || slices.Contains(o.Only, check))
}

// Plan is the combined change for a set of findings: at most one
// WorkloadPlan per workload and one PDBPlan per PodDisruptionBudget, new
// budgets, and what has no mechanical fix.
type Plan struct {
	Workloads []*WorkloadPlan
	PDBs      []*PDBPlan
	NewPDBs   []*NewPDB
	Manual    []Manual
}

// Manual is a finding the plan does not fix, with the one-line fix from the
// check's explanation and, where a fix exists in general, why it was not
// applied here.
type Manual struct {
	Finding inspect.Finding
	Fix     string
	Reason  string
}

// Files returns the files the plan edits, sorted.
func (p *Plan) Files() []string {
	seen := map[string]bool{}
	add := func(s *inspect.Source) {
		if s != nil && s.File != "" {
			seen[s.File] = true
		}
	}
	for _, w := range p.Workloads {
		add(w.Source)
	}
	for _, d := range p.PDBs {
		add(d.Source)
	}
	for _, n := range p.NewPDBs {
		add(n.Source)
	}
	return slices.Sorted(maps.Keys(seen))
}

// NewPlan computes the plan for findings (an audit's report, after --skip
// and suppression annotations: a finding not in the list is never fixed)
// over the inventory they were found in.
func NewPlan(inv *inspect.Inventory, findings []inspect.Finding, opts Options) *Plan {
	byObject := map[inspect.ObjectRef][]inspect.Finding{}
	var order []inspect.ObjectRef
	for _, f := range findings {
		if !opts.fixes(f.Check) {
			continue
		}
		if _, ok := byObject[f.Object]; !ok {
			order = append(order, f.Object)
		}
		byObject[f.Object] = append(byObject[f.Object], f)
	}
	p := &Plan{}
	workloads := map[inspect.ObjectRef]*inspect.Workload{}
	for _, w := range inv.Workloads {
		workloads[w.Object] = w
	}
	pdbs := map[inspect.ObjectRef]*inspect.PDB{}
	for i, d := range inv.PDBs {
		pdbs[pdbRef(d)] = &inv.PDBs[i]
	}
	names := pdbNames(inv)
	for _, ref := range order {
		fs := byObject[ref]
		switch {
		case workloads[ref] != nil:
			p.planWorkload(workloads[ref], fs, opts, names)
		case pdbs[ref] != nil:
			p.planPDB(inv, pdbs[ref], fs)
		default:
			for _, f := range fs {
				p.manual(f, "")
			}
		}
	}
	return p
}

// manual lists f as having no mechanical fix here, for reason ("" when
// the check never has one).
func (p *Plan) manual(f inspect.Finding, reason string) {
	p.Manual = append(p.Manual, Manual{Finding: f, Fix: explainedFix(f.Check), Reason: reason})
}

// shutdownSeconds is the app's shutdown time the plan budgets for w.
func shutdownSeconds(w *inspect.Workload, opts Options) int64 {
	if v, ok := w.Template.Annotations[inspect.ShutdownSecondsAnnotation]; ok {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
			return n
		}
	}
	return ptr.Deref(opts.ShutdownSeconds, DefaultShutdownSeconds)
}

// pdbRef is budget d's reference, in "default" when its manifest names
// no namespace.
func pdbRef(d inspect.PDB) inspect.ObjectRef {
	return inspect.ObjectRef{Kind: "PodDisruptionBudget", Namespace: cmp.Or(d.Namespace, "default"), Name: d.Name}
}

// pdbNames is the set of "namespace/name" of existing budgets, so that new
// ones get a free name.
func pdbNames(inv *inspect.Inventory) map[string]bool {
	out := map[string]bool{}
	for _, d := range inv.PDBs {
		r := pdbRef(d)
		out[r.Namespace+"/"+r.Name] = true
	}
	return out
}

// freeName returns name, or name-pdb, name-pdb-2, ... when taken, and
// takes it.
func freeName(names map[string]bool, ns, name string) string {
	cand := name
	for i := 1; names[ns+"/"+cand]; i++ {
		cand = name + "-pdb"
		if i > 1 {
			cand = fmt.Sprintf("%s-pdb-%d", name, i)
		}
	}
	names[ns+"/"+cand] = true
	return cand
}
