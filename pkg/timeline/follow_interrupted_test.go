package timeline_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// A Ctrl-C that cuts the read of the Services leaves no note saying they
// cannot be listed: that would read as RBAC, and the watch ends at once.
func TestFollowCutByCtrlCLeavesNoServicesNote(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := fake.NewClientset(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web-0", UID: "u1"}})
	c.PrependReactor("list", "*", func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, ctx.Err() })
	tl, _ := timeline.Follow(ctx, timeline.Config{Client: c, Namespace: "ns", Name: "web-0"})
	if tl == nil {
		t.Fatal("no timeline")
	}
	if len(tl.Notes) != 0 {
		t.Errorf("notes %q after an interrupted read", tl.Notes)
	}
}
