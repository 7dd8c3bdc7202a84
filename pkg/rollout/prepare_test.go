package rollout

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// A Ctrl-C or --timeout that cuts the reads of the Services and
// PodDisruptionBudgets leaves no note saying they cannot be listed: that
// would read as RBAC, and the watch ends at once anyway.
func TestPrepareCutByCtrlCLeavesNoNote(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := fake.NewClientset()
	c.PrependReactor("list", "*", func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, ctx.Err() })
	f := &workloadFollower{cfg: Config{Client: c, Workload: Workload{Kind: kindDeployment, Namespace: "ns", Name: "web"}},
		r: &Rollout{}, st: workloadState{template: map[string]string{"app": "web"}}}
	f.prepare(ctx)
	if len(f.r.Notes) != 0 || f.r.ServicesUnseen {
		t.Errorf("notes %q, ServicesUnseen %v after an interrupted read", f.r.Notes, f.r.ServicesUnseen)
	}
}
