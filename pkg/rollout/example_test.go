package rollout_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// client stands for the program's clientset (kubernetes.NewForConfig).
var client kubernetes.Interface

// Restart a Deployment and follow its rollout, as `watch deployment/web
// --restart` does: Follow opens its watches, sends the restart once each
// has listed, reports each change to the Printer and returns when the
// rollout is complete and no old pod is terminating (or ctx ends);
// ComputeWith judges every terminated pod and the Services' capacity.
// Follow needs a cluster (its watches use the client's REST client, which
// a fake clientset lacks): this example is compiled, not run.
func ExampleFollow() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	r, err := rollout.Follow(ctx, rollout.Config{Client: client,
		Workload: rollout.Workload{Kind: "Deployment", Namespace: "shop", Name: "web"}, Action: rollout.Restart,
		Printer: rollout.Printer{Capacity: func(_ *rollout.Rollout, service string, s rollout.CapacitySample) {
			fmt.Println(service, "ready:", s.Ready, "of", s.Desired)
		}}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	v := rollout.ComputeWith(r, timeline.Options{Propagation: 5 * time.Second})
	fmt.Println("ended:", v.Ended, "risk:", v.Risk, "terminated:", v.Terminated, "raced:", v.Raced)
}

// Judge what was seen of a rollout: here the watch ended at its timeout
// before the Deployment's status said the rollout was done, and one new
// pod never became Ready: a risk (`watch` exits 2). ComputeWith is pure.
func ExampleComputeWith() {
	start := time.Date(2026, 11, 29, 7, 0, 0, 0, time.UTC)
	r := &rollout.Rollout{Workload: rollout.Workload{Kind: "Deployment", Namespace: "shop", Name: "web"},
		Start: start, T0: start, End: start.Add(40 * time.Second), Ended: timeline.EndedTimeout,
		LastStatus: `Waiting for deployment "web" rollout to finish: 3 of 4 updated replicas are available...`,
		NeverReady: []string{"web-5f6d8-new1"}}
	v := rollout.ComputeWith(r, timeline.Options{})
	fmt.Println("risk:", v.Risk, "complete:", v.Complete, "ended:", v.Ended)
	for _, f := range v.Findings {
		fmt.Println(f)
	}
	// Output:
	// risk: true complete: false ended: timeout
	// rollout did not complete before --timeout: Waiting for deployment "web" rollout to finish: 3 of 4 updated replicas are available...
	// pod(s) never Ready while watched: web-5f6d8-new1
	// 0 pod(s) terminated
	// no Service selects the workload: no endpoint race, no capacity track
}
