package preflight

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// A pool's preflight holds each namespace's pods once, however many of
// the pool's nodes run pods of it: 50 nodes holding 2,000 pods of one
// namespace (bench/README.md's drain --watch pool) made the peak RSS of
// `drain node -l --watch` pass 300 MB while every node's Input held its
// own copy of the 2,000 pods (100,000 Pod structs).
func TestGatherPoolSharesNamespacePods(t *testing.T) {
	const nodes, perNode = 50, 40
	cs := fake.NewClientset()
	var pool []corev1.Node
	byNode := map[string][]corev1.Pod{}
	for i := 0; i < nodes; i++ {
		n := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("n-%d", i)}}
		pool = append(pool, n)
		if err := cs.Tracker().Add(&n); err != nil {
			t.Fatal(err)
		}
		for j := 0; j < perNode; j++ {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p-%d-%d", i, j), Namespace: "pool"},
				Spec:   corev1.PodSpec{NodeName: n.Name, Containers: []corev1.Container{{Name: "web", Image: "pause"}}},
				Status: corev1.PodStatus{Phase: corev1.PodRunning}}
			if err := cs.Tracker().Add(p); err != nil {
				t.Fatal(err)
			}
			byNode[n.Name] = append(byNode[n.Name], *p)
		}
	}
	// The fake clientset ignores field selectors: each node's pods, as
	// the API server answers spec.nodeName=NODE.
	cs.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, k8sruntime.Object, error) {
		node, ok := a.(k8stesting.ListAction).GetListRestrictions().Fields.RequiresExactMatch("spec.nodeName")
		return ok, &corev1.PodList{Items: byNode[node]}, nil
	})
	before := liveHeap()
	in, err := GatherPool(context.Background(), cs, nil, pool, "", Flags{IgnoreDaemonSets: true, DeleteEmptyDirData: true})
	if err != nil {
		t.Fatal(err)
	}
	// Each node's own pods and the namespace's, once: a few MB. A copy of
	// the namespace's pods for each node was 50 x 2,000 Pod structs more.
	held := liveHeap() - before
	t.Logf("the pool's Input holds %d MB", held>>20)
	if held > 30<<20 {
		t.Errorf("the pool's Input holds %d MB for %d pods on %d nodes, want at most 30 MB", held>>20, nodes*perNode, nodes)
	}
	if got := len(in.PerNode); got != nodes {
		t.Fatalf("%d nodes gathered, want %d", got, nodes)
	}
	for i, one := range in.PerNode {
		if len(one.Pods) != perNode || len(one.NamespacePods) != nodes*perNode {
			t.Fatalf("node %d: %d pods, %d namespace pods; want %d and %d", i, len(one.Pods), len(one.NamespacePods), perNode, nodes*perNode)
		}
		if &one.NamespacePods[0] != &in.PerNode[0].NamespacePods[0] {
			t.Fatalf("node %d holds its own copy of the namespace's %d pods", i, nodes*perNode)
		}
	}
	runtime.KeepAlive(in)
}

// liveHeap is the heap's live bytes after a full collection.
func liveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}
