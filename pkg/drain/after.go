package drain

import (
	"context"
	"errors"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// NodeAfter is the node as read again once its drain ended, so that the
// summary states what holds now rather than what the drain last believed:
// another client may have uncordoned the node, and the scheduler may have
// placed new pods on it.
type NodeAfter struct {
	// Known is false when the node or its pods could not be read; Unknown
	// then says why and the other fields are empty.
	Known   bool   `json:"known"`
	Unknown string `json:"unknown,omitempty"`
	// Unschedulable is the node's spec.unschedulable.
	Unschedulable bool `json:"unschedulable"`
	// NewPods are the pods ("namespace/name") the drain would evict that
	// it did not start with or saw go: they came after it.
	NewPods []string `json:"newPods"`
	// NotReporting, when set, says that the node's kubelet had stopped
	// reporting: its terminating pods wait on it.
	NotReporting *NodeSilence `json:"notReporting,omitempty"`
	// cause is the API error behind Unknown.
	cause error
}

// readAfter reads the node and its evictable pods (kubectl's
// GetPodsForDeletion, with the drain's filters) once the drain ended. With
// watched, the node's pod watch still running, its pods are those the
// watch holds, picked by the same filters (preflight.Evicts and the pod
// selector), and a node the pool's node watch holds cordoned is not read
// again: the summary costs no request.
func (d *nodeRun) readAfter(ctx context.Context, node string, tracker *podTracker, watched *nodePods) *NodeAfter {
	var n *corev1.Node
	if watched != nil {
		n = d.nodes.cordoned(node)
	}
	if n == nil {
		var err error
		n, err = retryTransient(ctx, d.Backoff, d.failures, func() (*corev1.Node, error) {
			return d.Client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		})
		if err != nil {
			return &NodeAfter{Unknown: "the node could not be read: " + err.Error(), NewPods: []string{}, cause: err}
		}
	}
	after := &NodeAfter{Known: true, Unschedulable: n.Spec.Unschedulable, NewPods: []string{}}
	after.NotReporting = d.readSilence(ctx, n, tracker)
	pods, err := d.podsAfter(ctx, node, watched)
	if err != nil {
		return &NodeAfter{Unknown: "the node's pods could not be read: " + err.Error(), NewPods: []string{}, cause: err}
	}
	known := map[string]State{}
	for _, p := range tracker.snapshot() {
		known[p.Namespace+"/"+p.Name] = p.State
	}
	for _, p := range pods {
		key := p.Namespace + "/" + p.Name
		// A pod recreated under a name the drain started with (a
		// StatefulSet's) is new: its UID differs.
		if state, ok := known[key]; !ok || state == StateGone || !tracker.sameAsListed(&p) {
			after.NewPods = append(after.NewPods, key)
		}
	}
	return after
}

// heldWait bounds the wait for the node's pod watch's first list before
// the pods are listed instead.
const heldWait = 5 * time.Second

// podsAfter returns the pods of node the drain would evict now: from
// watched when it holds them (its first list waited for up to heldWait),
// else listed with kubectl's filters.
func (d *nodeRun) podsAfter(ctx context.Context, node string, watched *nodePods) ([]corev1.Pod, error) {
	if watched != nil {
		selector, err := labels.Parse(d.PodSelector)
		if held, ok := watched.waitHeld(ctx, heldWait); ok && err == nil {
			var out []corev1.Pod
			for _, p := range held {
				if selector.Matches(labels.Set(p.Labels)) && preflight.Evicts(p, d.Flags) {
					out = append(out, *p)
				}
			}
			return out, nil
		}
	}
	list, errs := d.podsForDeletion(ctx, node)
	if list == nil {
		if len(errs) > 0 {
			return nil, errs[0]
		}
		return nil, errors.New("listing pods failed")
	}
	return list.Pods(), nil
}

// disturbed reports whether another client undid the drain: the node is
// schedulable though we did not uncordon it, or new pods run on it.
func (a *NodeAfter) disturbed(uncordonedByUs bool) bool {
	return a.Known && (!a.Unschedulable && !uncordonedByUs || len(a.NewPods) > 0)
}
