package inspect

import "k8s.io/apimachinery/pkg/labels"

// index groups the inventory's objects by namespace and parses each PDB's
// selector once. Services, PDBs and HPAs select pods only in their own
// namespace (Kubernetes API conventions: a Service's and a PDB's selector
// match pods of their namespace; an HPA's scaleTargetRef names an object
// of its namespace), so matching a workload needs its namespace's objects
// only: an audit's matching grows with the objects of a namespace, not
// with the cluster's (4,000 workloads each compared with 4,000 Services
// and 1,200 PDBs was 21 million comparisons, most of the audit's time).
// Lists hold positions in the inventory's slices, in inventory order, so
// results come out in the same order as a scan of the whole slice.
type index struct {
	services, pdbs, hpas, pods map[string][]int
	workloads                  map[string][]*Workload
	// pdbSel[i] is pdbSelector(inv.PDBs[i]).
	pdbSel []labels.Selector
	// anyDefaulted is true when some workload or PDB was given its
	// namespace for lack of one in its manifest (namespace_hint.go).
	anyDefaulted bool
}

// index returns the scope's index, built on first use; the inventory does
// not change during an audit.
func (s *scope) index() *index {
	if s.idx != nil {
		return s.idx
	}
	inv := s.inv
	x := &index{services: map[string][]int{}, pdbs: map[string][]int{}, hpas: map[string][]int{}, pods: map[string][]int{},
		workloads: map[string][]*Workload{}, pdbSel: make([]labels.Selector, len(inv.PDBs))}
	for i, svc := range inv.Services {
		ns := namespaceOf(svc.Namespace)
		x.services[ns] = append(x.services[ns], i)
	}
	for i, p := range inv.PDBs {
		ns := namespaceOf(p.Namespace)
		x.pdbs[ns] = append(x.pdbs[ns], i)
		x.pdbSel[i] = pdbSelector(p)
		x.anyDefaulted = x.anyDefaulted || p.NamespaceDefaulted
	}
	for i, h := range inv.HPAs {
		ns := namespaceOf(h.Namespace)
		x.hpas[ns] = append(x.hpas[ns], i)
	}
	for i, p := range inv.Pods {
		ns := namespaceOf(p.Namespace)
		x.pods[ns] = append(x.pods[ns], i)
	}
	for _, w := range inv.Workloads {
		x.workloads[w.Object.Namespace] = append(x.workloads[w.Object.Namespace], w)
		x.anyDefaulted = x.anyDefaulted || w.NamespaceDefaulted
	}
	s.idx = x
	return x
}
