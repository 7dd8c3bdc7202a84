package preflight

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	nodeutil "k8s.io/component-helpers/node/util"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// roomElsewhere reports whether a node other than drained could take a
// replacement of pod: Ready, schedulable, matching the pod's nodeSelector
// and required node affinity, and with no NoSchedule or NoExecute taint
// the pod does not tolerate. Resources, pod (anti-)affinity and topology
// spread are not checked, so such a node may still turn out to be full;
// false is certain.
func roomElsewhere(pod *corev1.Pod, drained string, nodes []corev1.Node) bool {
	affinity := nodeaffinity.GetRequiredNodeAffinity(pod)
	return slices.ContainsFunc(nodes, func(n corev1.Node) bool { return n.Name != drained && schedulableFor(pod, affinity, &n) })
}

// schedulableFor reports whether the scheduler may place pod on n, leaving
// resources aside: n is Ready and schedulable (or cordoned, for a pod that
// tolerates node.kubernetes.io/unschedulable: the cordon does not close a
// node to it), matches affinity (the pod's nodeSelector and required node
// affinity) and has no NoSchedule or NoExecute taint the pod does not
// tolerate.
func schedulableFor(pod *corev1.Pod, affinity nodeaffinity.RequiredNodeAffinity, n *corev1.Node) bool {
	if n.Spec.Unschedulable {
		if _, tolerates := inspect.ToleratesCordon(pod.Spec); !tolerates {
			return false
		}
	}
	return placeable(pod, affinity, n)
}

// placeable reports whether the scheduler may place pod on n leaving
// resources and the cordon aside: n is Ready, matches affinity and has no
// NoSchedule or NoExecute taint the pod does not tolerate.
func placeable(pod *corev1.Pod, affinity nodeaffinity.RequiredNodeAffinity, n *corev1.Node) bool {
	if !nodeReady(n) {
		return false
	}
	if ok, err := affinity.Match(n); err != nil || !ok {
		return false
	}
	_, untolerated := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), liveTaints(n), pod.Spec.Tolerations,
		func(t *corev1.Taint) bool {
			return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
		}, false)
	return !untolerated
}

// liveTaints returns n's taints without node.kubernetes.io/unschedulable
// and node.kubernetes.io/not-ready: the node lifecycle controller mirrors
// spec.unschedulable and the Ready condition into them a few seconds after
// the fact, and the callers check those two themselves. A node uncordoned
// or Ready again a moment ago still carries the taint, but a replacement
// created now is scheduled there once the controller's next pass lifts it.
func liveTaints(n *corev1.Node) []corev1.Taint {
	return slices.DeleteFunc(slices.Clone(n.Spec.Taints), func(t corev1.Taint) bool {
		return t.Key == corev1.TaintNodeUnschedulable || t.Key == corev1.TaintNodeNotReady
	})
}

// nodeReady reports whether n's Ready condition is True.
func nodeReady(n *corev1.Node) bool {
	_, c := nodeutil.GetNodeCondition(&n.Status, corev1.NodeReady)
	return c != nil && c.Status == corev1.ConditionTrue
}

// cordonTolerators adds a tolerates-cordon blocker for each pod of evict
// whose replacement the scheduler may place back on the drained node once
// it is cordoned: it tolerates node.kubernetes.io/unschedulable (or every
// taint), something replaces it, and the node is otherwise open to it.
// Waiting does not help: the drain evicts it and its replacement may land
// on the node again.
func cordonTolerators(r *Report, evict []*corev1.Pod, in Input) {
	for _, pod := range evict {
		tol, ok := inspect.ToleratesCordon(pod.Spec)
		if !ok || !ownerOf(pod, in.RSOwners).replicated() || !placeable(pod, nodeaffinity.GetRequiredNodeAffinity(pod), in.Node) {
			continue
		}
		r.Blockers = append(r.Blockers, Issue{Kind: BlockerToleratesCordon, Pod: podKey(pod),
			Message: fmt.Sprintf("tolerates the cordon (%s): its replacement may be scheduled back on %s, so the drain cannot empty the node, and waiting does not help; tolerate only the taints it needs", tol, in.Node.Name)})
	}
}
