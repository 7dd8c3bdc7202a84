package drain_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The API server's order, on which the drain's preconditions rest
// (evictor.send): an eviction whose resourceVersion precondition is stale
// is answered 409, but only after the budget recorded the pod in
// status.disruptedPods, so the next eviction, without the version, is
// refused by the budget although the pod is still there and Ready.
func TestStaleVersionSpendsTheBudget(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	node := f.env.Node(t)
	f.deploy("web", "web", 2, f.pool(node), nil)
	f.pdb("web", "web", intOrStr(1), nil, nil, 2)
	f.pdbStatus("web", func(p *policyv1.PodDisruptionBudget) bool { return p.Status.DisruptionsAllowed == 1 })
	pod := f.pods("app=web", onNode(node))[0]
	stale := pod.ResourceVersion
	if _, err := f.env.Client.CoreV1().Pods(f.ns).Patch(f.ctx, pod.Name, types.MergePatchType,
		[]byte(`{"metadata":{"annotations":{"touched":"yes"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	evict := func(rv *string) error {
		return f.env.Client.PolicyV1().Evictions(f.ns).Evict(f.ctx, &policyv1.Eviction{
			ObjectMeta:    metav1.ObjectMeta{Namespace: f.ns, Name: pod.Name},
			DeleteOptions: &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &pod.UID, ResourceVersion: rv}},
		})
	}
	if err := evict(&stale); !apierrors.IsConflict(err) {
		t.Fatalf("eviction with a stale resourceVersion: %v, want a 409", err)
	}
	st, err := f.env.Client.PolicyV1().PodDisruptionBudgets(f.ns).Get(f.ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, recorded := st.Status.DisruptedPods[pod.Name]; !recorded {
		t.Errorf("disruptedPods %v: want %s recorded by the refused eviction", st.Status.DisruptedPods, pod.Name)
	}
	if err := evict(nil); !apierrors.IsTooManyRequests(err) {
		t.Errorf("eviction with the UID alone: %v, want the budget's 429", err)
	}
	if got, err := f.env.Client.CoreV1().Pods(f.ns).Get(f.ctx, pod.Name, metav1.GetOptions{}); err != nil || got.DeletionTimestamp != nil {
		t.Errorf("pod %s: %v, deleting %v: want it still there", pod.Name, err, got != nil && got.DeletionTimestamp != nil)
	}
}

// Pods whose version keeps changing (annotated every 30 ms, as a
// controller that patches its pods would) under a budget that allows one
// disruption: the drain's resourceVersion precondition is often stale when
// the eviction arrives, the API server spends the budget and answers 409,
// and the drain deletes the pod the budget let go instead of waiting 2
// minutes for the disruption controller. The budget holds throughout.
func TestDrainPodsChangingUnderABudget(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	a, _ := f.onOneOfTwo("web", "web", 2)
	f.pdb("web", "web", intOrStr(1), nil, nil, 2)
	ready := countReady(t, f, "app=web")
	stop := make(chan struct{})
	touched := make(chan int)
	go func() {
		n := 0
		defer func() { touched <- n }()
		for i := 0; i < 3000; i++ { // bounded: 90 s at most
			select {
			case <-stop:
				return
			case <-time.After(30 * time.Millisecond):
			}
			for _, p := range f.pods("app=web", onNode(a)) {
				patch := fmt.Sprintf(`{"metadata":{"annotations":{"touched":"%d"}}}`, i)
				if _, err := f.env.Client.CoreV1().Pods(f.ns).Patch(f.ctx, p.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err == nil {
					n++
				}
			}
		}
	}()
	start := time.Now()
	res := f.drainFor(2*time.Minute, a, "--timeout", "60s")
	close(stop)
	n := <-touched
	expect(t, res, 0)
	if took := time.Since(start); took > 60*time.Second || !strings.Contains(res.Stdout, "node "+a+" drained") {
		t.Errorf("drain took %s; want drained well before the disruption controller's 2 minutes:\n%s", took, res.Stdout)
	}
	if low := ready.Lowest(); low < 1 {
		t.Errorf("Ready pods dropped to %d, the budget says at least 1", low)
	}
	t.Logf("%d patches while draining; the drain's lines about the budget: %q", n, grepLines(res.Stdout, "budget"))
}

// grepLines is the lines of s that hold sub.
func grepLines(s, sub string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return out
}
