package nodewatch_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/nodewatch"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// client stands for the program's clientset (kubernetes.NewForConfig).
var client kubernetes.Interface

// Follow a node's drain, whoever drains it, as `watch node node-1` does:
// Follow calls Ready once every watch has listed (start a drain of your
// own from there to see each termination from its start), reports each
// pod's changes to the Printer, and returns when no pod a drain evicts is
// left on the node or ctx ends; ComputeWith judges each workload's pods.
// Follow needs a cluster (its watches use the client's REST client, which
// a fake clientset lacks): this example is compiled, not run.
func ExampleFollow() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	w, err := nodewatch.Follow(ctx, nodewatch.Config{Client: client, Nodes: []string{"node-1"},
		Ready: func() { fmt.Println("watching: drain node-1 now") },
		Printer: nodewatch.Printer{PodEvent: func(_ *nodewatch.Watch, node string, r *rollout.Rollout, tl *timeline.Timeline, e timeline.Event) {
			fmt.Println(node, r.Workload, tl.Pod, e.Kind)
		}}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	v := nodewatch.ComputeWith(w, timeline.Options{})
	fmt.Println("ended:", v.Ended, "risk:", v.Risk, "terminated:", v.Terminated, "raced:", v.Raced, "SIGKILLed:", v.Killed)
}

// Judge what was seen of a drain of node-1: the watch ended at its
// timeout with one pod of Deployment web still terminating on the node, a
// risk (`watch node` exits 2). ComputeWith is pure: a Watch built in
// memory is judged as one Follow returned.
func ExampleComputeWith() {
	start := time.Date(2026, 11, 29, 7, 0, 0, 0, time.UTC)
	web := &rollout.Rollout{Workload: rollout.Workload{Kind: "Deployment", Namespace: "shop", Name: "web"},
		Start: start, T0: start.Add(5 * time.Second), End: start.Add(65 * time.Second)}
	w := &nodewatch.Watch{Nodes: []string{"node-1"}, Start: start, T0: start.Add(5 * time.Second),
		End: start.Add(65 * time.Second), Ended: timeline.EndedTimeout, Workloads: []*rollout.Rollout{web},
		Remaining: []string{"shop/web-5f6d8-a"}, Terminating: []string{"shop/web-5f6d8-a"}}
	v := nodewatch.ComputeWith(w, timeline.Options{})
	fmt.Println("risk:", v.Risk, "ended:", v.Ended, "remaining:", v.Remaining, "after", *v.DurationMs, "ms")
	for _, f := range v.Findings {
		fmt.Println(f)
	}
	// Output:
	// risk: true ended: timeout remaining: [shop/web-5f6d8-a] after 60000 ms
	// the watch reached --timeout with 1 evictable pod(s) still on the nodes (still terminating: 1 (shop/web-5f6d8-a), not deleted yet: 0 (none)): their terminations were not seen to the end, cannot tell
	// 0 pod(s) of 1 workload(s) terminated on 1 node(s)
}
