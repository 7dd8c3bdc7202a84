package inspect

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
)

// Live, PodDisruptionBudgets are matched against the labels the running
// pods carry, not only their template's: the disruption controller and the
// eviction API read the pod's own labels (pkg/controller/disruption
// getPdbForPod, pkg/registry/core/pod/storage/eviction.go), and operators
// (database operators, service meshes) label pods at run time with labels
// no template has. From files the template is all there is.

// podOwnerRefs returns the workloads a live pod may belong to, as the
// workload controllers name what they create: a StatefulSet's, DaemonSet's,
// ReplicaSet's or Job's pod names it as its controller; a Deployment's pod
// is controlled by a ReplicaSet named <deployment>-<pod-template-hash>
// (pkg/controller/deployment/sync.go, getNewReplicaSet), the hash being the
// pod's pod-template-hash label.
func podOwnerRefs(p PodLabels) []ObjectRef {
	ns := namespaceOf(p.Namespace)
	switch p.ControllerKind {
	case "":
		return nil
	case "ReplicaSet":
		out := []ObjectRef{{Kind: "ReplicaSet", Namespace: ns, Name: p.ControllerName}}
		if h := p.Labels["pod-template-hash"]; h != "" && strings.HasSuffix(p.ControllerName, "-"+h) {
			out = append(out, ObjectRef{Kind: "Deployment", Namespace: ns, Name: strings.TrimSuffix(p.ControllerName, "-"+h)})
		}
		return out
	}
	return []ObjectRef{{Kind: p.ControllerKind, Namespace: ns, Name: p.ControllerName}}
}

// podsOf returns the positions in inv.Pods of w's running pods, and
// whether they are known: live, with pods readable, for a kind whose pods
// podOwnerRefs can tell, and at least one pod. When they are not known the
// checks match the template, as for files.
func (s *scope) podsOf(w *Workload) ([]int, bool) {
	if !s.inv.Live || w.Generic {
		return nil, false
	}
	if _, unavailable := s.inv.Unavailable[InputPods]; unavailable {
		return nil, false
	}
	x := s.index()
	if x.podsOf == nil {
		x.podsOf = map[ObjectRef][]int{}
		workloads := map[ObjectRef]bool{}
		for _, w := range s.inv.Workloads {
			workloads[w.Object] = true
		}
		for i, p := range s.inv.Pods {
			for _, ref := range podOwnerRefs(p) {
				if workloads[ref] {
					x.podsOf[ref] = append(x.podsOf[ref], i)
					break
				}
			}
		}
	}
	pods := x.podsOf[w.Object]
	return pods, len(pods) > 0
}

// podCoverage is how the budgets of a workload's namespace cover its
// running pods.
type podCoverage struct {
	// pods counts the running pods; uncovered those no budget selects.
	pods, uncovered int
	// covers counts, per budget (position in inv.PDBs, in inventory
	// order), the pods it selects.
	covers []budgetCount
	// overlapped counts the pods more than one budget selects; overlapping
	// names those budgets.
	overlapped  int
	overlapping []string
}

type budgetCount struct {
	pdb, pods int
}

// coverage matches each of w's running pods against the budgets of its
// namespace; ok is false when its pods are not known (podsOf).
func (s *scope) coverage(w *Workload) (podCoverage, bool) {
	pods, ok := s.podsOf(w)
	if !ok {
		return podCoverage{}, false
	}
	x := s.index()
	c := podCoverage{pods: len(pods)}
	counts := map[int]int{}
	overlapping := map[int]bool{}
	for _, pi := range pods {
		var matched []int
		for _, bi := range x.pdbs[w.Object.Namespace] {
			if x.pdbSel[bi].Matches(labels.Set(s.inv.Pods[pi].Labels)) {
				matched = append(matched, bi)
				counts[bi]++
			}
		}
		switch {
		case len(matched) == 0:
			c.uncovered++
		case len(matched) > 1:
			c.overlapped++
			for _, bi := range matched {
				overlapping[bi] = true
			}
		}
	}
	for _, bi := range x.pdbs[w.Object.Namespace] {
		if counts[bi] > 0 {
			c.covers = append(c.covers, budgetCount{pdb: bi, pods: counts[bi]})
		}
		if overlapping[bi] {
			c.overlapping = append(c.overlapping, s.inv.PDBs[bi].Name)
		}
	}
	return c, true
}

// perBudget says which budget covers how many of the pods:
// "db-primary covers 1, db-replicas covers 2".
func (s *scope) perBudget(c podCoverage) string {
	var parts []string
	for _, b := range c.covers {
		parts = append(parts, fmt.Sprintf("%s covers %d", s.inv.PDBs[b.pdb].Name, b.pods))
	}
	return strings.Join(parts, ", ")
}

var pdbSplit = register(&Check{
	ID:       "pdb-split",
	Field:    "template.metadata.labels",
	Topic:    TopicBudgets,
	Severity: SeverityInfo,
	Summary:  "live: the running pods of one workload are under different PodDisruptionBudgets (by labels set at run time, e.g. by an operator): each budget allows disruptions of its own pods only",
	Needs:    []Input{InputPDBs, InputPods},
	LiveOnly: true,
	run: onePerWorkload(func(s *scope, w *Workload) (string, string) {
		cov, ok := s.coverage(w)
		if !ok || len(cov.covers) < 2 {
			return "", ""
		}
		return fmt.Sprintf("its %d running pods are under %d PodDisruptionBudgets by their own labels: %s; each budget counts and allows disruptions of its own pods only, so a drain may take down as many of this workload's pods as the budgets allow together",
				cov.pods, len(cov.covers), s.perBudget(cov)),
			fmt.Sprintf("kubectl get pods -n %s --show-labels shows which labels put each pod under which budget", w.Object.Namespace)
	}),
	Explanation: Explanation{
		Why:    "The disruption controller and the eviction API match a budget against each pod's own labels. Operators (database operators labelling a primary and its replicas, service meshes) set labels on running pods that the pod template does not have, so the pods of one workload can fall under several budgets. Each budget's disruptionsAllowed counts only the pods it selects: together they may allow more of the workload down at once than any one says.",
		Fix:    "Check that the budgets together keep enough of the workload up (a budget per role is often intended, e.g. a database's primary and replicas).",
		Source: srcEviction + "; disruption controller (pkg/controller/disruption, getPodsForPdb)",
	},
})
