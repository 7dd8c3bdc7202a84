package drain

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// fakeCluster is a fake clientset holding nodes n1..nN, each with one bare
// pod, where every access review is allowed, the eviction subresource is
// served and an accepted eviction deletes its pod (as the API server's
// does, the pod having no grace period here).
func fakeCluster(t *testing.T, nodes int) (*fake.Clientset, []corev1.Node) {
	t.Helper()
	var objs []runtime.Object
	var list []corev1.Node
	for i := 1; i <= nodes; i++ {
		n := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("n%d", i), ResourceVersion: "1"}}
		list = append(list, n)
		objs = append(objs, &n, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: fmt.Sprintf("web-%d", i), UID: types.UID("uid-" + n.Name)},
			Spec:       corev1.PodSpec{NodeName: n.Name}, Status: corev1.PodStatus{Phase: corev1.PodRunning}})
	}
	cs := fake.NewClientset(objs...)
	cs.Resources = []*metav1.APIResourceList{{GroupVersion: "v1", APIResources: []metav1.APIResource{
		{Name: "pods/eviction", Kind: "Eviction", Group: "policy", Version: "v1"}}}}
	cs.PrependReactor("create", "selfsubjectaccessreviews", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, &authorizationv1.SelfSubjectAccessReview{Status: authorizationv1.SubjectAccessReviewStatus{Allowed: true}}, nil
	})
	cs.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "eviction" {
			return false, nil, nil
		}
		ev := a.(k8stesting.CreateAction).GetObject().(metav1.Object)
		return true, nil, cs.Tracker().Delete(schema.GroupVersionResource{Version: "v1", Resource: "pods"}, ev.GetNamespace(), ev.GetName())
	})
	// The fake ignores field selectors: list the pods of spec.nodeName only.
	cs.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		node, ok := a.(k8stesting.ListAction).GetListRestrictions().Fields.RequiresExactMatch("spec.nodeName")
		if !ok {
			return false, nil, nil
		}
		obj, err := cs.Tracker().List(schema.GroupVersionResource{Version: "v1", Resource: "pods"},
			schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, a.GetNamespace())
		if err != nil {
			return true, nil, err
		}
		pods := obj.(*corev1.PodList)
		out := &corev1.PodList{}
		for _, p := range pods.Items {
			if p.Spec.NodeName == node {
				out.Items = append(out.Items, p)
			}
		}
		return true, out, nil
	})
	return cs, list
}

// forbid makes every verb request of resource (with subresource) answer
// 403 Forbidden, as RBAC does.
func forbid(cs *fake.Clientset, verb, resource, subresource string) {
	cs.PrependReactor(verb, resource, func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != subresource {
			return false, nil, nil
		}
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: resource}, "", fmt.Errorf("RBAC: access denied"))
	})
}

func testDrainer(cs *fake.Clientset) *Drainer {
	return &Drainer{Client: cs, Flags: preflight.Flags{GracePeriodSeconds: -1, Force: true}, Timeout: 20 * time.Second,
		Backoff: Backoff{Base: time.Millisecond, Cap: time.Millisecond}, MaxConcurrentNodes: 3}
}

// A 403 from the API server reaches the caller of Drain and DrainPool
// with its type, whether it refused the cordon or the evictions (or, in a
// pool, the preflight's reads): the caller can ask apierrors.IsForbidden
// (the library formats its own errors with %v). One node's preflight
// refused its reads is a refusal before anything changed: a forbidden
// blocker that quotes the API server.
func TestForbiddenReachesTheCaller(t *testing.T) {
	for _, c := range []struct{ name, verb, resource, subresource string }{
		{"preflight", "list", "nodes", ""},
		{"cordon", "patch", "nodes", ""},
		{"eviction", "create", "pods", "eviction"},
	} {
		t.Run(c.name+"/Drain", func(t *testing.T) {
			cs, nodes := fakeCluster(t, 1)
			forbid(cs, c.verb, c.resource, c.subresource)
			res, err := testDrainer(cs).Drain(context.Background(), &nodes[0])
			if c.name == "preflight" {
				if err != nil || res.Outcome != OutcomeRefused || len(res.Preflight.Blockers) != 1 ||
					res.Preflight.Blockers[0].Kind != preflight.BlockerForbidden || !strings.Contains(res.Preflight.Blockers[0].Message, "nodes is forbidden") {
					t.Errorf("outcome %s, err %v, preflight %+v: want refused by one forbidden blocker quoting the 403", res.Outcome, err, res.Preflight)
				}
				return
			}
			if !apierrors.IsForbidden(err) || res.Outcome != OutcomeError {
				t.Errorf("outcome %s, err %v (%T): want an error that is Forbidden", res.Outcome, err, err)
			}
		})
		t.Run(c.name+"/DrainPool", func(t *testing.T) {
			cs, nodes := fakeCluster(t, 2)
			forbid(cs, c.verb, c.resource, c.subresource)
			res, err := testDrainer(cs).DrainPool(context.Background(), nodes)
			if !apierrors.IsForbidden(err) || res.Outcome == OutcomeDrained {
				t.Errorf("outcome %s, err %v (%T): want an error that is Forbidden", res.Outcome, err, err)
			}
		})
	}
}

// One Drainer drains several nodes at once from several goroutines, and
// a pool several nodes at a time: each run keeps its own state (run with
// -race).
func TestOneDrainerSeveralGoroutines(t *testing.T) {
	cs, nodes := fakeCluster(t, 6)
	d := testDrainer(cs)
	var wg sync.WaitGroup
	results := make([]*NodeResult, 3)
	for i := range results {
		wg.Go(func() {
			res, err := d.Drain(context.Background(), &nodes[i])
			if err != nil {
				t.Errorf("node %s: %v", nodes[i].Name, err)
			}
			results[i] = res
		})
	}
	var pool *PoolResult
	wg.Go(func() {
		var err error
		if pool, err = d.DrainPool(context.Background(), nodes[3:]); err != nil {
			t.Errorf("pool: %v", err)
		}
	})
	wg.Wait()
	for _, r := range results {
		if r.Outcome != OutcomeDrained || len(r.Pods) != 1 || r.Pods[0].State != StateGone {
			t.Errorf("node %s: outcome %s, pods %+v: want drained, its pod gone", r.Node, r.Outcome, r.Pods)
		}
	}
	if pool.Outcome != OutcomeDrained || len(pool.Nodes) != 3 {
		t.Errorf("pool: outcome %s, %d nodes: want 3 drained", pool.Outcome, len(pool.Nodes))
	}
}

// Events with only some fields set, or none: the drain calls those set and
// skips the others, a single node's and a pool's drain alike.
func TestEventsNilFieldsAreSafe(t *testing.T) {
	cs, nodes := fakeCluster(t, 3)
	var mu sync.Mutex
	var done, changed []string
	d := testDrainer(cs)
	d.Events = Events{
		NodeDone: func(r *NodeResult) { mu.Lock(); defer mu.Unlock(); done = append(done, r.Node) },
		PodChanged: func(node string, p PodProgress) {
			mu.Lock()
			defer mu.Unlock()
			if p.State == StateGone {
				changed = append(changed, node+" "+p.Name)
			}
		},
	}
	if res, err := d.Drain(context.Background(), &nodes[0]); err != nil || res.Outcome != OutcomeDrained {
		t.Fatalf("Drain: outcome %s, err %v", res.Outcome, err)
	}
	if res, err := d.DrainPool(context.Background(), nodes[1:]); err != nil || res.Outcome != OutcomeDrained {
		t.Fatalf("DrainPool: outcome %s, err %v", res.Outcome, err)
	}
	if len(done) != 3 || len(changed) != 3 {
		t.Errorf("NodeDone for %v, a pod gone on %v: want each of the 3 nodes once", done, changed)
	}
	for _, c := range changed {
		if c != "n1 web-1" && c != "n2 web-2" && c != "n3 web-3" {
			t.Errorf("PodChanged %q: the pod is not named with its node", c)
		}
	}
}
