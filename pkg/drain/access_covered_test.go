package drain

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// The permission preflight asks exactly what the drain will send: every
// request the drain makes after its access reviews (the cordon, the
// evictions, the watches, the waits) is one the preflight asked about, so
// a drain the caller may not finish is refused before the cordon. Checked
// for a node and a pool, with budgets, --disable-eviction and
// --delete-after.
func TestAccessNeededCoversDrain(t *testing.T) {
	for _, c := range []struct {
		name  string
		flags func(*preflight.Flags)
		pool  bool
	}{
		{"evict", func(*preflight.Flags) {}, false},
		{"evict pool", func(*preflight.Flags) {}, true},
		{"disable-eviction", func(f *preflight.Flags) { f.DisableEviction = true }, false},
		{"delete-after", func(f *preflight.Flags) { f.DeleteAfter = 1e9 }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cs, nodes := fakeCluster(t, 2)
			one := intstr.FromInt32(1)
			_, _ = cs.PolicyV1().PodDisruptionBudgets("shop").Create(context.Background(), &policyv1.PodDisruptionBudget{
				ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"},
				Spec:       policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &one, Selector: &metav1.LabelSelector{}},
				Status:     policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: 1}}, metav1.CreateOptions{})
			listedAt(cs, "7")
			d := testDrainer(cs)
			d.Timeout = 5 * time.Second
			c.flags(&d.Flags)
			var reports []*preflight.Report
			if c.pool {
				res, err := d.DrainPool(context.Background(), nodes)
				if err != nil || res.Preflight == nil {
					t.Fatalf("pool drain: %v", err)
				}
				reports = res.Preflight.Nodes
			} else {
				res, err := d.Drain(context.Background(), &nodes[0])
				if err != nil || res.Preflight == nil {
					t.Fatalf("drain: %v", err)
				}
				reports = []*preflight.Report{res.Preflight}
			}
			var asked []preflight.AccessCheck
			for _, r := range reports {
				asked = append(asked, r.Access...)
			}
			before, after := splitAtReviews(cs.Actions())
			for _, a := range after {
				if !covered(a, asked) && !sentBefore(a, before) && !degrades[a.GetVerb()+" "+a.GetResource().Resource] {
					t.Errorf("the drain sent %s %s/%s in namespace %q, which its preflight never asked about",
						a.GetVerb(), a.GetResource().Resource, a.GetSubresource(), a.GetNamespace())
				}
			}
		})
	}
}

// splitAtReviews splits actions at the last access review: the
// preflight's own reads, then what the drain sends once it read the
// cluster.
func splitAtReviews(actions []k8stesting.Action) ([]k8stesting.Action, []k8stesting.Action) {
	last := -1
	for i, a := range actions {
		if a.GetResource().Resource == "selfsubjectaccessreviews" {
			last = i
		}
	}
	return actions[:last+1], actions[last+1:]
}

// sentBefore reports whether the preflight sent the same request itself
// (a List of the same resource in the same namespace): a refusal would
// have stopped it before any change.
func sentBefore(a k8stesting.Action, before []k8stesting.Action) bool {
	for _, b := range before {
		if b.GetVerb() == a.GetVerb() && b.GetResource() == a.GetResource() && b.GetSubresource() == a.GetSubresource() &&
			b.GetNamespace() == a.GetNamespace() {
			return true
		}
	}
	return false
}

// degrades are the requests a refusal of which costs the drain nothing
// it promised, each handled where it is sent: the pool's watch of the
// nodes (nodeWatch goes stale and each node is read again, as the
// preflight's list of them was), and the Services listed for the
// load-balancer warning (warnLBNotExcluded adds no warning) and
// --exclude-from-lb's wait (waitLB says the delay is unknown).
var degrades = map[string]bool{"watch nodes": true, "list services": true}

// covered reports whether a check of asked grants action: the same verb,
// resource and subresource, in its namespace or every one, on its name or
// every one.
func covered(a k8stesting.Action, asked []preflight.AccessCheck) bool {
	name := ""
	if g, ok := a.(interface{ GetName() string }); ok {
		name = g.GetName()
	}
	for _, c := range asked {
		if c.Verb == a.GetVerb() && c.Resource == a.GetResource().Resource && c.Subresource == a.GetSubresource() &&
			(c.Namespace == "" || c.Namespace == a.GetNamespace()) && (c.Name == "" || c.Name == name) {
			return true
		}
	}
	return false
}

// listedAt makes the fake's Lists of pods carry resourceVersion rv, as
// the API server's do, so that the drain watches from them (the fake
// leaves it empty, which no watch can start from).
func listedAt(cs *fake.Clientset, rv string) {
	cs.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		obj, err := cs.Tracker().List(schema.GroupVersionResource{Version: "v1", Resource: "pods"},
			schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, a.GetNamespace())
		if err != nil {
			return true, nil, err
		}
		list := obj.(*corev1.PodList)
		node, ok := a.(k8stesting.ListAction).GetListRestrictions().Fields.RequiresExactMatch("spec.nodeName")
		out := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: rv}}
		for _, p := range list.Items {
			if !ok || p.Spec.NodeName == node {
				out.Items = append(out.Items, p)
			}
		}
		return true, out, nil
	})
}
