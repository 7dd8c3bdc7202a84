package drain

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
)

// nodeCordon cordons and uncordons one node with optimistic concurrency
// (a resourceVersion precondition on every patch), so "cordoned by us" is
// the result of our own patch; manager, unique per run (one call of Drain
// or DrainPool), tells from the node's managedFields whether
// spec.unschedulable is still this drain's. See docs/drain.md (Who
// cordoned the node).
//
// Its reads and patches are retried through a short outage (backoff): a
// patch carries its resourceVersion precondition, so sending it again is
// safe.
type nodeCordon struct {
	client  kubernetes.Interface
	backoff Backoff
	manager string
}

// drainManagerPrefix begins the field manager of every drain's patches
// (and the value of excludedFromLBAnnotation it writes).
const drainManagerPrefix = "kubectl-graceful-drain-"

// get reads node, retried through a short outage.
func (c *nodeCordon) get(ctx context.Context, node string) (*corev1.Node, error) {
	return retryTransient(ctx, c.backoff, nil, func() (*corev1.Node, error) {
		return c.client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	})
}

// cordon sets spec.unschedulable on node. It returns true when our patch
// changed it (the node was schedulable at the resourceVersion the patch was
// preconditioned on), false when the node was already cordoned; an error
// when the node could not be read or patched.
//
// known, when not nil, is the node as read already (the preflight's list):
// schedulable there, the first patch is preconditioned on it without a read
// of its own (a 409 Conflict reads it again); cordoned there, the node is
// read again, since another client may have uncordoned it since.
func (c *nodeCordon) cordon(ctx context.Context, node string, known *corev1.Node) (bool, error) {
	byUs := false
	err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		n := known
		known = nil
		if n == nil || n.Spec.Unschedulable {
			var err error
			if n, err = c.get(ctx, node); err != nil {
				return err
			}
		}
		if n.Spec.Unschedulable {
			// Cordoned: by our own patch when its answer was lost (then
			// spec.unschedulable is ours alone), else by another client.
			owners := unschedulableManagers(n)
			byUs = len(owners) == 1 && owners[0] == c.manager
			return nil
		}
		if err := c.patch(ctx, n, true); err != nil {
			return err
		}
		byUs = true
		return nil
	})
	return byUs, err
}

// uncordon clears spec.unschedulable on node if this drain's cordon still
// holds: the node is cordoned and spec.unschedulable is managed by our field
// manager alone. It returns "" when it uncordoned the node, else why it left
// it alone (uncordoned already, or cordoned again by another client).
func (c *nodeCordon) uncordon(ctx context.Context, node string) (string, error) {
	why := ""
	err := c.reread(ctx, node, func(n *corev1.Node) error {
		if !n.Spec.Unschedulable {
			why = "another client uncordoned it already"
			return nil
		}
		owners := unschedulableManagers(n)
		if len(owners) != 1 || owners[0] != c.manager {
			why = "another client cordoned it again after this drain (" + strings.Join(owners, ", ") + ")"
			return nil
		}
		why = ""
		return c.patch(ctx, n, false)
	})
	return why, err
}

// reread calls change with node as read now, again after a 409 Conflict
// of the patch change sent.
func (c *nodeCordon) reread(ctx context.Context, node string, change func(*corev1.Node) error) error {
	return retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		n, err := c.get(ctx, node)
		if err != nil {
			return err
		}
		return change(n)
	})
}

// patch sets spec.unschedulable with a JSON merge patch preconditioned on
// n's resourceVersion: a 409 Conflict when the node changed since n was read.
func (c *nodeCordon) patch(ctx context.Context, n *corev1.Node, unschedulable bool) error {
	value := "null" // false is the field's zero value: the API server omits it
	if unschedulable {
		value = "true"
	}
	return c.send(ctx, n, fmt.Sprintf(`{"metadata":{"resourceVersion":%q},"spec":{"unschedulable":%s}}`, n.ResourceVersion, value))
}

// send sends body, a JSON merge patch of n, under our field manager,
// retried through a short outage.
func (c *nodeCordon) send(ctx context.Context, n *corev1.Node, body string) error {
	_, err := retryTransient(ctx, c.backoff, nil, func() (*corev1.Node, error) {
		return c.client.CoreV1().Nodes().Patch(ctx, n.Name, types.MergePatchType, []byte(body),
			metav1.PatchOptions{FieldManager: c.manager})
	})
	return err
}

// unschedulableManagers returns the field managers that own the node's
// spec.unschedulable in its managedFields, sorted.
func unschedulableManagers(n *corev1.Node) []string {
	var out []string
	for _, e := range n.ManagedFields {
		if e.FieldsV1 == nil {
			continue
		}
		var fields struct {
			Spec map[string]json.RawMessage `json:"f:spec"`
		}
		if json.Unmarshal(e.FieldsV1.GetRawBytes(), &fields) == nil && fields.Spec["f:unschedulable"] != nil {
			out = append(out, e.Manager)
		}
	}
	sort.Strings(out)
	return out
}
