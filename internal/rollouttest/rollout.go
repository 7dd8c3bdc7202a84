// Package rollouttest builds the rollouts that the tests of the rollout
// watch and its renderers judge and print.
package rollouttest

import (
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

func terminate(t testing.TB, grace int64, hook bool, hookSeconds int64, services []string, exitMs int64, code int32) *timeline.Timeline {
	t.Helper()
	return timelinetest.Terminate(t, timeline.NewRecorder, grace, hook, hookSeconds, services, exitMs, code, nil).TL
}

// Rollout builds a rollout of two terminated pods (one without preStop,
// one with a 5 s preStop) and a capacity track for Service web.
func Rollout(t testing.TB) *rollout.Rollout {
	naive := terminate(t, 30, false, 0, []string{"web"}, 1000, 0)
	hardened := terminate(t, 30, true, 5, []string{"web"}, 6000, 0)
	hardened.Pod, hardened.UID = "web-2", "uid-web-2"
	for i := range hardened.Events {
		hardened.Events[i].Recv = hardened.Events[i].Recv.Add(2000 * 1e6)
	}
	hardened.T0 = timelinetest.At(2000)
	tr := &rollout.CapacityTrack{Service: "web", Samples: []rollout.CapacitySample{
		{Recv: timelinetest.At(-500), Ready: 4, Desired: 4, Initial: true},
		{Recv: timelinetest.At(15), Ready: 3, ServingTerminating: 1, Desired: 4},
		{Recv: timelinetest.At(1000), Ready: 2, Desired: 4},
		{Recv: timelinetest.At(3000), Ready: 4, Desired: 4},
	}}
	return &rollout.Rollout{Workload: rollout.Workload{Kind: "Deployment", Namespace: "shop", Name: "web"}, Services: []string{"web"},
		Budgets: []rollout.Budget{{Name: "web-pdb", DesiredHealthy: 3}}, T0: timelinetest.At(-100), T0Source: timeline.T0RestartSent, Start: timelinetest.At(-1000),
		End: timelinetest.At(9000), Pods: []*timeline.Timeline{hardened, naive}, Capacity: []*rollout.CapacityTrack{tr}, Ended: timeline.EndedComplete, Complete: true, CompleteAt: timelinetest.At(8100)}
}
