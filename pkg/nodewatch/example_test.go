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
