package drain

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/selecting"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// excludedFromLBAnnotation records on a node that a drain's own patch set
// node.kubernetes.io/exclude-from-external-load-balancers (--exclude-from-lb);
// its value is that drain's field manager. The label is removed again only
// where the annotation names the run removing it: a label set by someone
// else stays.
const excludedFromLBAnnotation = "kubectl-graceful.dev/excluded-from-lb"

// LBWait is the wait, after a node's pods are gone, for the deregistration
// delay of the load balancers the node was taken out of
// (Events.LBWaiting).
type LBWait struct {
	Node string `json:"node"`
	// DelaySeconds is the longest deregistration delay the audit reads
	// from the cluster's LoadBalancer Services; From names it.
	DelaySeconds int64  `json:"delaySeconds"`
	From         string `json:"from"`
	// RemainingSeconds is what is left of it since the label was set.
	RemainingSeconds float64 `json:"remainingSeconds"`
}

// exclude labels node out of external load balancers with a patch
// preconditioned on the resourceVersion it read, recording this run in
// excludedFromLBAnnotation. It returns true when its patch set the label,
// false when the label was there already (set by someone else).
func (c *nodeCordon) exclude(ctx context.Context, node string) (bool, error) {
	byUs := false
	err := c.reread(ctx, node, func(n *corev1.Node) error {
		if _, ok := n.Labels[corev1.LabelNodeExcludeBalancers]; ok {
			byUs = n.Annotations[excludedFromLBAnnotation] == c.manager
			return nil
		}
		byUs = true
		return c.patchLB(ctx, n, fmt.Sprintf(`{"labels":{%q:"true"},"annotations":{%q:%q}}`,
			corev1.LabelNodeExcludeBalancers, excludedFromLBAnnotation, c.manager))
	})
	return byUs, err
}

// include removes the label and the annotation if this run set them and
// the annotation still names it; else it says why it left them.
func (c *nodeCordon) include(ctx context.Context, node string) (string, error) {
	why := ""
	err := c.reread(ctx, node, func(n *corev1.Node) error {
		_, labelled := n.Labels[corev1.LabelNodeExcludeBalancers]
		switch {
		case !labelled:
			why = "another client removed the label already"
			return nil
		case n.Annotations[excludedFromLBAnnotation] != c.manager:
			why = "another client set it again"
			return nil
		}
		why = ""
		return c.patchLB(ctx, n, fmt.Sprintf(`{"labels":{%q:null},"annotations":{%q:null}}`,
			corev1.LabelNodeExcludeBalancers, excludedFromLBAnnotation))
	})
	return why, err
}

// patchLB sends metadata as a JSON merge patch preconditioned on n's
// resourceVersion.
func (c *nodeCordon) patchLB(ctx context.Context, n *corev1.Node, metadata string) error {
	return c.send(ctx, n, fmt.Sprintf(`{"metadata":{"resourceVersion":%q,%s}}`, n.ResourceVersion, metadata[1:len(metadata)-1]))
}

// excludeFromLB takes the node out of external load balancers before the
// evictions (--exclude-from-lb), recording when.
func (d *nodeRun) excludeFromLB(ctx context.Context, res *NodeResult) error {
	if !d.ExcludeFromLB {
		return nil
	}
	byUs, err := d.cordons.exclude(ctx, res.Node)
	if err != nil {
		return fmt.Errorf("labelling node %s %s: %w", res.Node, corev1.LabelNodeExcludeBalancers, err)
	}
	res.ExcludedFromLB, res.excludedAt = byUs, time.Now()
	return nil
}

// waitLB waits, before the node is reported drained, for what is left of
// the longest deregistration delay of the node's LoadBalancer Services
// (delayOf) since the node was labelled, telling Events.LBWaiting first. Ctrl-C or
// --timeout cut it short (LBWaitCut).
func (d *nodeRun) waitLB(ctx context.Context, res *NodeResult) {
	if !d.ExcludeFromLB || res.excludedAt.IsZero() {
		return
	}
	svcs, err := d.Client.CoreV1().Services(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		res.LBWait = fmt.Sprintf("unknown: the Services could not be listed (%v), so no deregistration delay was waited", err)
		return
	}
	w := LBWait{Node: res.Node}
	for _, s := range svcs.Items {
		if sec, from := d.delayOf(s); sec > w.DelaySeconds {
			w.DelaySeconds, w.From = sec, "Service "+s.Namespace+"/"+s.Name+": "+from
		}
	}
	if w.DelaySeconds == 0 {
		return
	}
	left := time.Until(res.excludedAt.Add(time.Duration(w.DelaySeconds) * time.Second))
	w.RemainingSeconds = max(left, 0).Seconds()
	call(d.Events.LBWaiting, w)
	res.LBWait = fmt.Sprintf("waited %.0f s more for the %d s deregistration delay of %s, counted from the label", w.RemainingSeconds, w.DelaySeconds, w.From)
	if !sleep(ctx, max(left, 0)) {
		res.LBWait = fmt.Sprintf("the wait for the %d s deregistration delay of %s was cut short (%v)", w.DelaySeconds, w.From, context.Cause(ctx))
	}
}

// includeLB undoes the label after a failed drain, as the cordon is undone
// (--uncordon-on-failure): only if this run set it.
func (d *nodeRun) includeLB(ctx context.Context, res *NodeResult) {
	if !d.UncordonOnFailure || !res.ExcludedFromLB {
		return
	}
	why, err := d.cordons.include(ctx, res.Node)
	switch {
	case err != nil:
		res.LBIncludeSkipped = "removing the label failed: " + err.Error()
	case why != "":
		res.LBIncludeSkipped = why
	default:
		res.LBIncluded = true
	}
}

// warnLBNotExcluded adds the preflight's warning that LoadBalancer
// Services keep the node through the drain, without --exclude-from-lb;
// pods are the node's, for the Services of policy Local. A failed list of
// Services adds nothing (the drain does not need them).
func (d *nodeRun) warnLBNotExcluded(ctx context.Context, r *preflight.Report, pods []corev1.Pod) {
	if d.ExcludeFromLB || r == nil {
		return
	}
	svcs, err := d.Client.CoreV1().Services(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		if ctx.Err() == nil {
			r.Warnings = append(r.Warnings, lbUnknown(r.Node, err))
		}
		return
	}
	// The node's own first: Services in the namespaces of the pods it
	// evicts (the warning names three).
	mine := map[string]int{}
	for _, g := range r.Evict {
		mine[g.Namespace] = -1
	}
	slices.SortStableFunc(svcs.Items, func(a, b corev1.Service) int {
		return cmp.Compare(mine[a.Namespace], mine[b.Namespace])
	})
	if w, ok := lbNotExcluded(r.Node, svcs.Items, pods); ok {
		r.Warnings = append(r.Warnings, w)
	}
}

// delayOf is the deregistration delay that labelling the node starts in
// svc's load balancers: any of them when svc selects a pod the drain
// listed on the node (servesNode); else only those that send through every
// node, once svc has a load balancer. See docs/drain.md (Load balancers).
func (d *nodeRun) delayOf(svc corev1.Service) (int64, string) {
	serves := d.servesNode(svc)
	if !serves && len(svc.Status.LoadBalancer.Ingress) == 0 {
		return 0, ""
	}
	return inspect.DeregistrationDelay(svc, serves)
}

// servesNode reports whether svc selects one of the pods the drain listed
// on the node: the node's Services, whose load balancer sent to it.
func (d *nodeRun) servesNode(svc corev1.Service) bool {
	if d.tracker == nil {
		return false
	}
	for _, p := range d.tracker.listed {
		if selecting.Selects(&svc, p) {
			return true
		}
	}
	return false
}
