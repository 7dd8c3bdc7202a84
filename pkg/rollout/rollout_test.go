package rollout_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/rollouttest"
	"github.com/kubectl-graceful/kubectl-graceful/internal/timelinetest"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/rollout"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/timeline"
)

func TestComputeRolloutPodsCapacityAndEnd(t *testing.T) {
	v := rollout.ComputeWith(rollouttest.Rollout(t), timeline.Options{})
	// web-1 has no preStop: SIGTERM came within ms of its endpoint
	// leaving, in an order the API cannot tell; too short, no race seen.
	if v.Terminated != 2 || v.Raced != 0 || v.WindowTooShort != 1 || v.Killed != 0 || !v.Risk {
		t.Fatalf("terminated %d raced %d too short %d killed %d risk %v; findings %v", v.Terminated, v.Raced, v.WindowTooShort, v.Killed, v.Risk, v.Findings)
	}
	if v.Pods[0].Pod != "web-1" || !v.Pods[0].WindowTooShort || v.Pods[0].Raced || v.Pods[1].WindowTooShort || v.Pods[0].DeletedMs != 100 || v.Pods[1].DeletedMs != 2100 {
		t.Errorf("pods in deletion order with their verdicts: %+v", v.Pods)
	}
	if v.WorstShortPod != "web-1" || v.WorstShortByMs == nil || *v.WorstShortByMs != 4980 || v.WorstWindowMs != nil {
		t.Errorf("worst shortfall %v on %q, want 4980 ms on web-1 and no race window", v.WorstShortByMs, v.WorstShortPod)
	}
	if !hasRolloutFinding(v, "1 of 2 terminated pod(s) had a window too short (up to 4980 ms short of --propagation, pod web-1), no race seen") {
		t.Errorf("findings %q", v.Findings)
	}
	c := v.Capacity[0]
	if c.MinReady != 2 || c.MinDesired != 4 || *c.MinReadyMs != 1100 || c.EndReady != 4 {
		t.Errorf("capacity %+v: want a minimum of 2 of 4 at +1100 ms", c)
	}
	if c.BelowDesiredMs != 2985 || *c.BelowDesiredFromMs != 115 || c.BelowBudgetMs != 2000 {
		t.Errorf("below desired %d ms from %v, below budget %d ms; want 2985 from 115, 2000", c.BelowDesiredMs, *c.BelowDesiredFromMs, c.BelowBudgetMs)
	}
	if *v.DurationMs != 8200 || !hasRolloutFinding(v, "below PodDisruptionBudget web-pdb's desiredHealthy 3 for 2000 ms") {
		t.Errorf("duration %v findings %v", v.DurationMs, v.Findings)
	}
}

func hasRolloutFinding(v rollout.Verdict, sub string) bool {
	for _, f := range v.Findings {
		if strings.Contains(f, sub) {
			return true
		}
	}
	return false
}

func TestComputeRolloutNotCompleteIsARisk(t *testing.T) {
	r := &rollout.Rollout{Workload: rollout.Workload{Kind: "Deployment", Name: "web"}, Start: timelinetest.At(0), T0: timelinetest.At(0), End: timelinetest.At(40000),
		Ended: "timeout", LastStatus: "Waiting for deployment \"web\" rollout to finish: 1 out of 4 new replicas have been updated...",
		NeverReady: []string{"web-new-1"}}
	v := rollout.ComputeWith(r, timeline.Options{})
	if !v.Risk || v.Complete || !hasRolloutFinding(v, "did not complete before --timeout") || !hasRolloutFinding(v, "never Ready while watched: web-new-1") {
		t.Errorf("verdict %+v", v)
	}
}

func TestComputeRolloutNothingStartedIsNoRisk(t *testing.T) {
	r := &rollout.Rollout{Workload: rollout.Workload{Kind: "Deployment", Name: "web"}, Start: timelinetest.At(0), End: timelinetest.At(5000), Ended: "interrupted"}
	v := rollout.ComputeWith(r, timeline.Options{})
	if v.Risk || !hasRolloutFinding(v, "was interrupted before any rollout started") {
		t.Errorf("verdict %+v", v)
	}
}

// A watch interrupted before the first List of the EndpointSlices has
// no count of a Service's ready endpoints: it says so, not "0 of 0", and
// claims nothing of the budget.
func TestComputeRolloutCapacityNotSeen(t *testing.T) {
	r := &rollout.Rollout{Workload: rollout.Workload{Kind: "Deployment", Name: "web"}, Start: timelinetest.At(0), End: timelinetest.At(30),
		Ended: "interrupted", Services: []string{"web"}, Capacity: []*rollout.CapacityTrack{{Service: "web"}},
		Budgets: []rollout.Budget{{Name: "web-pdb", DesiredHealthy: 2}}}
	v := rollout.ComputeWith(r, timeline.Options{})
	if !hasRolloutFinding(v, "Service web: its ready endpoints were not seen before the watch ended") ||
		hasRolloutFinding(v, "0 of 0") || hasRolloutFinding(v, "never below PodDisruptionBudget") {
		t.Errorf("findings %q", v.Findings)
	}
}

// Every pod verdict of a rollout is judged with the rollout's options:
// a 3 s preStop is short of the default 5 s propagation, and meets 2 s.
func TestRolloutPodVerdictsUseThePropagation(t *testing.T) {
	r := &rollout.Rollout{Pods: []*timeline.Timeline{timelinetest.Terminate(t, timeline.NewRecorder, 30, true, 3, []string{"web"}, 4000, 0, nil).TL}}
	short := rollout.ComputeWith(r, timeline.Options{}).Pods[0].Verdict
	met := rollout.ComputeWith(r, timeline.Options{Propagation: 2 * time.Second}).Pods[0].Verdict
	if short.ShortByMs == nil || met.ShortByMs != nil || met.PropagationMs != 2000 {
		t.Errorf("default: short by %v; --propagation 2s: short by %v, propagation %d ms", short.ShortByMs, met.ShortByMs, met.PropagationMs)
	}
}

// A pod whose watch was cut while its race was decided is counted as one
// that cannot be judged, not as one that raced.
func TestComputeRolloutCountsPodsThatCannotBeJudged(t *testing.T) {
	r := rollouttest.Rollout(t)
	hardened := r.Pods[0]
	hardened.Gaps = append(hardened.Gaps, timeline.Gap{Stream: timeline.StreamEvents, From: timelinetest.At(2010), To: timelinetest.At(2300)})
	v := rollout.ComputeWith(r, timeline.Options{})
	if v.WindowTooShort != 1 || !hasRolloutFinding(v, "1 pod(s) cannot be judged: a watch was cut or stalled while their race was decided") {
		t.Errorf("too short %d, findings %q", v.WindowTooShort, v.Findings)
	}
}

// One network cut of the rollout's pod, EndpointSlices and Events watches
// is one cut, not three.
func TestComputeRolloutCountsOneCutOfThreeWatchesOnce(t *testing.T) {
	r := rollouttest.Rollout(t)
	r.Gaps = []timeline.Gap{
		{Stream: "pod", From: timelinetest.At(9000), To: timelinetest.At(9500)},
		{Stream: "EndpointSlices", From: timelinetest.At(9000), To: timelinetest.At(9700)},
		{Stream: "Events", From: timelinetest.At(9100), To: timelinetest.At(9600)},
	}
	v := rollout.ComputeWith(r, timeline.Options{})
	if !hasRolloutFinding(v, "the watches were cut 1 time(s): 3 gap(s) across the 3 watches (EndpointSlices, Events, pod)") || hasRolloutFinding(v, "cut 3 time(s)") {
		t.Errorf("findings %q", v.Findings)
	}
}
