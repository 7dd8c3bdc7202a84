package rollout_test

import (
	"testing"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/rollouttest"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

// --propagation of watch TYPE/NAME reaches every pod's verdict: each is
// judged against it, not against watch pod's default.
func TestPropagationReachesEveryPod(t *testing.T) {
	r := rollouttest.Rollout(t)
	v := rollout.ComputeWith(r, timeline.Options{Propagation: 7 * time.Second})
	if len(v.Pods) < 2 {
		t.Fatalf("%d pods judged, want the fixture's two", len(v.Pods))
	}
	for _, p := range v.Pods {
		if p.Verdict.PropagationMs != 7000 {
			t.Errorf("pod %s judged with propagation %d ms, want 7000", p.Pod, p.Verdict.PropagationMs)
		}
	}
	if d := rollout.ComputeWith(r, timeline.Options{}); d.Pods[0].Verdict.PropagationMs != timeline.DefaultPropagation.Milliseconds() {
		t.Errorf("Compute: propagation %d ms, want the default", d.Pods[0].Verdict.PropagationMs)
	}
}
