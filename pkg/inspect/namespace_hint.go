package inspect

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
)

// A manifest without a namespace goes to the namespace of the apply (-n,
// the kubeconfig context, or "default"). When a PodDisruptionBudget and
// the workload it was written for end up apart only because one of them
// had none, the findings about them say so: the fix is a namespace line,
// not a new budget.

// namespaceHintForWorkload returns a sentence naming the PDBs that select
// w's pod template from another namespace they (or w) were put in for lack
// of one, or "".
func (s *scope) namespaceHintForWorkload(w *Workload) string {
	if !s.index().anyDefaulted {
		return ""
	}
	var names []string
	for _, p := range s.inv.PDBs {
		if apartByDefault(p, w) {
			names = append(names, fmt.Sprintf("%s (namespace %s)", p.Name, namespaceOf(p.Namespace)))
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("; PodDisruptionBudget %s selects these pods but is in another namespace only because %s",
		strings.Join(names, ", "), whoHadNone(w.NamespaceDefaulted))
}

// namespaceHintForPDB is namespaceHintForWorkload seen from the PDB.
func (s *scope) namespaceHintForPDB(p PDB) string {
	if !s.index().anyDefaulted {
		return ""
	}
	var names []string
	defaultedWorkload := false
	for _, w := range s.inv.Workloads {
		if apartByDefault(p, w) {
			names = append(names, w.Object.String())
			defaultedWorkload = defaultedWorkload || w.NamespaceDefaulted
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("; it would select %s, in another namespace only because %s",
		strings.Join(names, ", "), whoHadNone(defaultedWorkload))
}

// apartByDefault reports whether p selects w's pods but sits in another
// namespace, with at least one of the two placed there for lack of one.
func apartByDefault(p PDB, w *Workload) bool {
	if w.Batch || !(p.NamespaceDefaulted || w.NamespaceDefaulted) || namespaceOf(p.Namespace) == w.Object.Namespace {
		return false
	}
	if p.Spec.Selector == nil || p.LegacyEmptySelector {
		return false
	}
	return pdbSelector(p).Matches(labels.Set(w.Template.Labels))
}

func whoHadNone(workloadDefaulted bool) string {
	if workloadDefaulted {
		return "the workload's manifest has no namespace and was given the namespace of the apply (-n, the kubeconfig context or \"default\")"
	}
	return "the PodDisruptionBudget's manifest has no namespace and was given the namespace of the apply (-n, the kubeconfig context or \"default\")"
}
