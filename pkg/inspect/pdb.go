package inspect

import (
	"cmp"
	"fmt"
	"strings"

	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Disruption budgets. Facts (pkg/registry/core/pod/storage/eviction.go and
// pkg/controller/disruption): eviction returns 429 while a PDB allows 0
// disruptions and 500 when more than one PDB matches the pod; the
// controller scales percentages with rounding up for both minAvailable and
// maxUnavailable; a nil selector matches no pod, an empty one (policy/v1)
// every pod in the namespace.

var pdbMissing = register(&Check{
	ID:       "pdb-missing",
	Topic:    TopicBudgets,
	Severity: SeverityWarning,
	Summary:  "workload with 2 or more replicas (or an HPA with minReplicas >= 2) and no PodDisruptionBudget: a drain may evict all its pods at once",
	Needs:    []Input{InputPDBs, InputHPAs},
	run:      onePerWorkload((*scope).pdbMissing),
	Explanation: Explanation{
		Why:    "Without a PodDisruptionBudget, a node drain or cluster upgrade may evict every replica at once (several can share a node, or nodes are drained in parallel). Live, budgets are matched against the labels the running pods carry, as the eviction API does (operators and meshes label pods at run time): a workload whose pods are all covered that way is not flagged, one with some pods under no budget is, with how many.",
		Fix:    "Create a PDB with maxUnavailable: 1 (or a percentage) selecting the workload's pods.",
		Source: srcEviction,
	},
})

// pdbMissing flags w when it has 2 or more replicas and budgets cover
// none or, live, not all of its running pods; "" otherwise.
func (s *scope) pdbMissing(w *Workload) (msg, fix string) {
	if w.Replicas == nil || w.Object.Kind == "Pod" {
		return "", ""
	}
	n, from := *w.Replicas, ""
	if h := s.hpaFor(w); h != nil && h.MinReplicas > n {
		n, from = h.MinReplicas, s.floorSource(w)
	}
	if n < 2 {
		return "", ""
	}
	cov, live := s.coverage(w)
	switch {
	case live && cov.uncovered == 0, !live && len(s.pdbsFor(w)) > 0:
		return "", ""
	case live && len(cov.covers) > 0:
		return fmt.Sprintf("%d of its %d running pods are under no PodDisruptionBudget (%s, by the pods' own labels): a node drain or cluster upgrade may evict those at once",
				cov.uncovered, cov.pods, s.perBudget(cov)),
			fmt.Sprintf("find the pods no budget selects: kubectl get pods -n %s -l %s --show-labels", w.Object.Namespace, labels.Set(w.Template.Labels))
	}
	msg = fmt.Sprintf("%d replicas%s and no PodDisruptionBudget: a node drain or cluster upgrade may evict them all at once", n, from)
	if live {
		msg = fmt.Sprintf("%d replicas and no PodDisruptionBudget selects any of its %d running pods: a node drain or cluster upgrade may evict them all at once", n, cov.pods)
	}
	return msg + s.namespaceHintForWorkload(w), fmt.Sprintf("kubectl create poddisruptionbudget %s -n %s --max-unavailable=1 --selector=%s",
		w.Object.Name, w.Object.Namespace, labels.Set(w.Template.Labels).String())
}

var pdbBlocksEviction = register(&Check{
	ID:       "pdb-blocks-eviction",
	Field:    "spec.minAvailable,spec.maxUnavailable",
	Topic:    TopicBudgets,
	Severity: SeverityError,
	Summary:  "PodDisruptionBudget that can never allow a disruption: by its spec (maxUnavailable 0, minAvailable 100% or >= replicas, neither set) or, live, by its status (SyncFailed): drains hang",
	Needs:    []Input{InputPDBs, InputHPAs},
	run: perPDB(func(s *scope, _ int, p PDB) (string, string) {
		if msg := s.blocksEviction(p); msg != "" {
			return msg + drainRemedy(s.workloadsFor(p)),
				fmt.Sprintf(`kubectl patch pdb %s -n %s --type=merge -p '{"spec":{"minAvailable":null,"maxUnavailable":1}}'`, p.Name, namespaceOf(p.Namespace))
		}
		return "", ""
	}),
	Explanation: Explanation{
		Why:    "A PDB that can never allow a disruption (maxUnavailable 0 or 0%, minAvailable 100%, an integer minAvailable >= replicas, or neither field set, for which the disruption controller expects no pods) makes every eviction return 429: kubectl drain and cluster upgrades hang until someone deletes the PDB. Percentages are scaled with rounding up, as the disruption controller does; with an HPA, its minReplicas is used. Live, a budget whose status the controller cannot compute (condition DisruptionAllowed=False, reason SyncFailed: for example pods owned by a custom resource without a scale subresource) blocks the same way.",
		Fix:    "Use maxUnavailable: 1 (or a percentage that resolves to at least 1), or raise replicas above minAvailable.",
		Source: srcEviction,
	},
})

// blocksEviction explains why p can never allow a disruption, or returns "".
// The expected pod count is the sum of the selected workloads' replicas
// (HPA minReplicas where an HPA scales them), as getExpectedScale does.
func (s *scope) blocksEviction(p PDB) string {
	targets := s.workloadsFor(p)
	if len(targets) == 0 {
		return ""
	}
	var expected int32
	countable, scaled := true, false
	floorWord := "HorizontalPodAutoscaler holds it at minReplicas"
	var names, counted []string
	for _, w := range targets {
		names = append(names, w.Object.Kind+"/"+w.Object.Name)
		n, ok := s.floorReplicas(w)
		if !ok {
			countable = false
		}
		expected += n
		how := fmt.Sprintf("%s/%s: replicas %d", w.Object.Kind, w.Object.Name, n)
		if h := s.hpaFor(w); h != nil && ok {
			scaled = true
			how = fmt.Sprintf("%s/%s: %s", w.Object.Kind, w.Object.Name, h.floorText(n))
			if h.Kind == kindScaledObject {
				floorWord = "ScaledObject holds it at minReplicaCount"
			}
		}
		counted = append(counted, how)
	}
	on := strings.Join(names, ", ")
	// of says what expected counts: an HPA's minReplicas is its floor, the
	// scale at which the budget allows least.
	of := fmt.Sprintf("%d pods (%s)", expected, strings.Join(counted, ", "))
	if p.Spec.MaxUnavailable == nil && p.Spec.MinAvailable == nil {
		// getExpectedPodCount counts no pods for such a budget, and
		// updatePdbStatus allows no disruption while it expects none.
		return fmt.Sprintf("sets neither minAvailable nor maxUnavailable: the disruption controller expects no pods for it (expectedPods 0, disruptionsAllowed 0, condition DisruptionAllowed=False InsufficientPods), so no pod of %s can ever be evicted", on)
	}
	if c := syncFailedCondition(p); c != "" {
		return "the disruption controller cannot compute its status (condition DisruptionAllowed=False, reason SyncFailed: " + c + "): it keeps disruptionsAllowed at 0, so no pod of " + on + " can be evicted until that is fixed"
	}
	if mu := p.Spec.MaxUnavailable; mu != nil {
		if mu.Type == intstr.String && !countable {
			if mu.StrVal == "0%" {
				return fmt.Sprintf("maxUnavailable is 0%%: no pod of %s can ever be evicted", on)
			}
			return ""
		}
		v, err := intstr.GetScaledValueFromIntOrPercent(mu, int(expected), true)
		if err == nil && v <= 0 {
			return fmt.Sprintf("maxUnavailable %s resolves to 0 of %s: no pod of %s can ever be evicted", mu.String(), of, on)
		}
		return ""
	}
	if ma := p.Spec.MinAvailable; ma != nil && countable && expected > 0 {
		v, err := intstr.GetScaledValueFromIntOrPercent(ma, int(expected), true)
		if err == nil && int32(v) >= expected {
			never := "no eviction is ever allowed"
			if scaled && ma.String() != "100%" {
				never = "whenever the " + floorWord + " no eviction is allowed, and a drain waits until it scales up"
			}
			return fmt.Sprintf("minAvailable %s requires %d of %s to stay up: %s", ma.String(), v, of, never)
		}
	}
	return ""
}

// syncFailedCondition returns the message of p's DisruptionAllowed=False
// SyncFailed condition, "" when it has none (a file's PDB never does).
func syncFailedCondition(p PDB) string {
	c := meta.FindStatusCondition(p.Status.Conditions, policyv1.DisruptionAllowedCondition)
	if c == nil || c.Status != "False" || c.Reason != policyv1.SyncFailedReason {
		return ""
	}
	return cmp.Or(c.Message, "no message")
}

var pdbNoDisruptionsNow = register(&Check{
	ID:       "pdb-no-disruptions-now",
	Field:    "spec.minAvailable,spec.maxUnavailable",
	Topic:    TopicBudgets,
	Severity: SeverityWarning,
	Summary:  "live: the PodDisruptionBudget allows 0 disruptions right now (status.disruptionsAllowed): evictions get 429 until pods recover",
	Needs:    []Input{InputPDBs},
	LiveOnly: true,
	run: perPDB(func(_ *scope, _ int, p PDB) (string, string) {
		st := p.Status
		if st.ExpectedPods == 0 || st.DisruptionsAllowed > 0 || st.ObservedGeneration < p.Generation {
			return "", ""
		}
		msg := fmt.Sprintf("disruptionsAllowed is 0 now: currentHealthy %d, desiredHealthy %d, expectedPods %d: evictions return 429",
			st.CurrentHealthy, st.DesiredHealthy, st.ExpectedPods)
		return msg, fmt.Sprintf("find the unready pods: kubectl get pods -n %s -l %s", namespaceOf(p.Namespace), pdbSelector(p))
	}),
	Explanation: Explanation{
		Why:    "status.disruptionsAllowed is 0 right now (some pods are unhealthy or the budget is tight): any drain or eviction started now blocks with 429.",
		Fix:    "Find and fix the unready pods before draining, or scale up; check currentHealthy vs desiredHealthy.",
		Source: srcEviction,
	},
})

var pdbOverlap = register(&Check{
	ID:       "pdb-overlap",
	Field:    "template.metadata.labels",
	Topic:    TopicBudgets,
	Severity: SeverityError,
	Summary:  "pods matched by more than one PodDisruptionBudget: the eviction API refuses them with 500, drains cannot proceed",
	Needs:    []Input{InputPDBs},
	run: onePerWorkload(func(s *scope, w *Workload) (string, string) {
		if w.Batch {
			return "", ""
		}
		return s.overlap(w), "narrow the PDBs' selectors so that each pod matches exactly one"
	}),
	Explanation: Explanation{
		Why:    "When more than one PDB matches a pod, the eviction API refuses to evict it with a 500 error (\"This pod has more than one PodDisruptionBudget\"): drains cannot proceed. Live, the running pods' own labels are matched, as the eviction API does; from files, the pod template's.",
		Fix:    "Make the PDBs' selectors disjoint so each pod matches exactly one.",
		Source: srcEviction,
	},
})

// overlap says how many of w's pods more than one budget selects: live, of
// its running pods by their own labels; from files, by its pod template.
// "" when none.
func (s *scope) overlap(w *Workload) string {
	if cov, live := s.coverage(w); live {
		if cov.overlapped == 0 {
			return ""
		}
		return fmt.Sprintf("%d of its %d running pods match more than one PodDisruptionBudget (%s) by the pods' own labels: eviction fails with 500",
			cov.overlapped, cov.pods, strings.Join(cov.overlapping, ", "))
	}
	pdbs := s.pdbsFor(w)
	if len(pdbs) < 2 {
		return ""
	}
	var names []string
	for _, p := range pdbs {
		names = append(names, p.Name)
	}
	return fmt.Sprintf("its pods match %d PodDisruptionBudgets (%s): eviction fails with 500", len(pdbs), strings.Join(names, ", "))
}

var pdbSelectsNothing = register(&Check{
	ID:       "pdb-selects-nothing",
	Field:    "spec.selector",
	Topic:    TopicBudgets,
	Severity: SeverityWarning,
	Summary:  "PodDisruptionBudget whose selector matches no workload (manifests) or no pod (live), or that has no selector",
	Needs:    []Input{InputPDBs},
	run: perPDB(func(s *scope, _ int, p PDB) (string, string) {
		return s.selectsNothing(p), "set spec.selector.matchLabels to the pod template labels of the workload it protects"
	}),
	Explanation: Explanation{
		Why:    "A PDB whose selector matches no pod protects nothing: usually a typo in labels, or a budget left behind. A PDB without selector matches no pod (in policy/v1 an empty selector {} matches every pod in the namespace, which pdb-overlap then reports).",
		Fix:    "Set spec.selector to the pod template labels of the workload it should protect, or delete it.",
		Source: srcEviction,
	},
})

func (s *scope) selectsNothing(p PDB) string {
	if p.Spec.Selector == nil || p.LegacyEmptySelector {
		return "no selector: it protects no pod"
	}
	if s.inv.Live {
		if _, unavailable := s.inv.Unavailable[InputPods]; unavailable {
			return ""
		}
		sel := pdbSelector(p)
		for _, i := range s.index().pods[namespaceOf(p.Namespace)] {
			if sel.Matches(labels.Set(s.inv.Pods[i].Labels)) {
				return ""
			}
		}
		return fmt.Sprintf("selector %s matches no pod in namespace %s", sel, namespaceOf(p.Namespace))
	}
	if len(s.workloadsFor(p)) > 0 {
		return ""
	}
	if s.inv.CustomResources[namespaceOf(p.Namespace)] > 0 {
		// Custom resources in the namespace may make an operator create the
		// pods (kube-prometheus' Prometheus and Alertmanager objects): the
		// manifests alone cannot tell, so say nothing.
		return ""
	}
	return fmt.Sprintf("selector %s matches no workload among the manifests in namespace %s", pdbSelector(p), namespaceOf(p.Namespace)) +
		s.namespaceHintForPDB(p)
}

var pdbUnhealthyEvictionPolicy = register(&Check{
	ID:       "pdb-unhealthy-eviction-policy",
	Field:    "spec.unhealthyPodEvictionPolicy",
	Topic:    TopicBudgets,
	Severity: SeverityInfo,
	Summary:  "unhealthyPodEvictionPolicy is IfHealthyBudget (explicit or default): a running but unready pod can block drains; AlwaysAllow lets it be evicted",
	Needs:    []Input{InputPDBs},
	run: perPDB(func(s *scope, _ int, p PDB) (string, string) {
		// The field is beta and on by default from 1.27, GA in 1.31.
		pol := p.Spec.UnhealthyPodEvictionPolicy
		if !s.inv.Version.AtLeast(1, 27) || pol != nil && *pol == policyv1.AlwaysAllow {
			return "", ""
		}
		how := "default"
		if pol != nil {
			how = "explicit"
		}
		return fmt.Sprintf("unhealthyPodEvictionPolicy is IfHealthyBudget (%s): a Running but not Ready pod (e.g. crash-looping) is evicted only while the budget's currentHealthy is at least its desiredHealthy, so while the application is already disrupted it blocks a drain; AlwaysAllow evicts such pods whatever the budget", how),
			fmt.Sprintf(`kubectl patch pdb %s -n %s --type=merge -p '{"spec":{"unhealthyPodEvictionPolicy":"AlwaysAllow"}}'`, p.Name, namespaceOf(p.Namespace))
	}),
	Explanation: Explanation{
		Why:    "With unhealthyPodEvictionPolicy IfHealthyBudget (the default), a Running but not Ready pod can be evicted only while the guarded application is not disrupted: the budget's status.currentHealthy is at least status.desiredHealthy (the eviction REST handler's rule). A crash-looping pod that itself keeps currentHealthy below desiredHealthy can so block a drain forever. AlwaysAllow (beta 1.27, GA 1.31) lets such pods be evicted at once, which is what most services want: an unready pod serves no traffic anyway.",
		Fix:    "Set spec.unhealthyPodEvictionPolicy: AlwaysAllow unless the app needs unready pods protected (e.g. quorum-based stores).",
		Source: "KEP-3017 (PDB unhealthy pod eviction policy); " + srcEviction,
	},
})

// drainRemedy names this tool's own way through a budget that never allows
// an eviction, for the workloads it guards: --surge, where every one is a
// Deployment or an Argo Rollout (it starts a replacement elsewhere before
// the eviction, kubernetes/kubernetes#90977), else --delete-after (it
// deletes the pod past the budget once the wait is over). "" when it
// guards none.
func drainRemedy(targets []*Workload) string {
	if len(targets) == 0 {
		return ""
	}
	for _, w := range targets {
		if w.Object.Kind != "Deployment" && w.Object.Kind != "Rollout" {
			return "; to drain a node anyway, `kubectl graceful drain node NODE --delete-after 10m` deletes such a pod past the budget once that wait is over (it names each first)"
		}
	}
	return "; to drain a node without downtime anyway, `kubectl graceful drain node NODE --surge` rolls the workload first, so that a replacement runs elsewhere before the eviction (its preflight says whether the rollout strategy allows it)"
}
