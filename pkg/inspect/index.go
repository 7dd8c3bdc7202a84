package inspect

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-graceful/kubectl-graceful/internal/ingressspec"
)

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
	services, pdbs, hpas, pods, ingresses map[string][]int
	// controllers maps each IngressClass to its spec.controller, and
	// defaultClass names the cluster's default (ingressspec.Classes).
	controllers  map[string]string
	defaultClass string
	workloads    map[string][]*Workload
	// pdbSel[i] is pdbSelector(inv.PDBs[i]).
	pdbSel []labels.Selector
	// podsOf maps a workload to the positions of its running pods in
	// inv.Pods, built on first use (pdb_pods.go).
	podsOf map[ObjectRef][]int
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
	x := &index{
		services:  byNamespace(inv.Services, func(v corev1.Service) string { return v.Namespace }),
		pdbs:      byNamespace(inv.PDBs, func(p PDB) string { return p.Namespace }),
		hpas:      byNamespace(inv.HPAs, func(h HPA) string { return h.Namespace }),
		pods:      byNamespace(inv.Pods, func(p PodLabels) string { return p.Namespace }),
		ingresses: byNamespace(inv.Ingresses, func(i networkingv1.Ingress) string { return i.Namespace }),
		workloads: map[string][]*Workload{},
		pdbSel:    make([]labels.Selector, len(inv.PDBs)),
	}
	x.controllers, x.defaultClass = ingressspec.Classes(inv.IngressClasses)
	for i, p := range inv.PDBs {
		x.pdbSel[i] = pdbSelector(p)
		x.anyDefaulted = x.anyDefaulted || p.NamespaceDefaulted
	}
	for _, w := range inv.Workloads {
		x.workloads[w.Object.Namespace] = append(x.workloads[w.Object.Namespace], w)
		x.anyDefaulted = x.anyDefaulted || w.NamespaceDefaulted
	}
	s.idx = x
	return x
}

// byNamespace maps each namespace (namespaceOf: "" is "default") to the
// positions of its items in items, ascending.
func byNamespace[T any](items []T, namespace func(T) string) map[string][]int {
	m := map[string][]int{}
	for i, v := range items {
		ns := namespaceOf(namespace(v))
		m[ns] = append(m[ns], i)
	}
	return m
}
