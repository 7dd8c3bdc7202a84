package drain_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/rand"
)

// The pool command refuses with the capacity blocker under
// --dry-run (exit 2) and without it (exit 2, nothing cordoned).
func TestPoolNoCapacityThroughTheCommand(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	small := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"),
		corev1.ResourceMemory: resource.MustParse("2Gi"), corev1.ResourcePods: resource.MustParse("110")}
	p1, p2 := f.env.Node(t), f.env.Node(t)
	s1, s2 := f.env.NodeWith(t, small), f.env.NodeWith(t, small)
	sel := f.pool(p1, p2, s1, s2)
	old := "o-" + rand.String(6)
	f.label(oldPoolLabel, old, p1, p2)
	f.cordon(s1, true)
	f.cordon(s2, true)
	f.deployRequesting("web", 4, sel, "1", "1Gi")
	f.cordon(s1, false)
	f.cordon(s2, false)
	selector := oldPoolLabel + "=" + old
	want := "the pods the pool evicts request 4 CPU / 4 GiB / 4 pods; the 2 schedulable node(s) outside it they may use have 2 CPU / 4 GiB / 220 pods free"
	for _, args := range [][]string{{"-l", selector, "--dry-run"}, {"-l", selector, "--timeout", "30s"}} {
		res := f.drain(args...)
		expect(t, res, 2, "[pool-no-capacity] "+want, "Pool verdict: would not start: pool-no-capacity")
		if !strings.Contains(res.Stdout, "FREE OUTSIDE POOL") {
			t.Errorf("no capacity table")
		}
		for _, n := range []string{p1, p2, s1, s2} {
			if f.unschedulable(n) {
				t.Errorf("%v: node %s cordoned", args, n)
			}
		}
	}
	// A selector matching every node: the pool refuses, nothing cordoned.
	res := f.drain("-l", "type=kwok", "--timeout", "30s")
	if res.ExitCode != 2 || !strings.Contains(res.Stdout, "nowhere for the") {
		t.Errorf("every node: exit %d, want 2 and nowhere for the pods to go", res.ExitCode)
	}
	for _, n := range []string{p1, p2, s1, s2, "kwok-node-0"} {
		if f.unschedulable(n) {
			t.Errorf("every node: node %s cordoned", n)
		}
	}
}
