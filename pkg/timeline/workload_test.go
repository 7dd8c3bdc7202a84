package timeline

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// endpoints returns a slice of service with one endpoint per state, for
// pods named by uid.
func endpoints(name, service string, eps map[string]EndpointState) *discoveryv1.EndpointSlice {
	s := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{discoveryv1.LabelServiceName: service}}}
	for uid, st := range eps {
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{"10.0.0." + uid},
			TargetRef:  &corev1.ObjectReference{Kind: "Pod", UID: types.UID(uid)},
			Conditions: discoveryv1.EndpointConditions{Ready: boolp(st.Ready), Serving: boolp(st.Serving), Terminating: boolp(st.Terminating)}})
	}
	return s
}

var (
	epReady       = EndpointState{Ready: true, Serving: true}
	epTerminating = EndpointState{Serving: true, Terminating: true}
	epGoing       = EndpointState{Terminating: true}
)

func TestCapacityCountsEachPodOnceAndServingTerminating(t *testing.T) {
	c := newCapacityTracker([]string{"web", "web-canary"}, 3)
	got := c.list(at(0), []*discoveryv1.EndpointSlice{
		endpoints("web-a", "web", map[string]EndpointState{"1": epReady, "2": epReady}),
		// the same pod in a second slice during a rebalance counts once
		endpoints("web-b", "web", map[string]EndpointState{"2": epReady, "3": epTerminating}),
	}, true)
	if len(got) != 2 {
		t.Fatalf("samples %+v, want one per Service", got)
	}
	for _, s := range got {
		want := CapacitySample{Recv: at(0), Ready: 2, ServingTerminating: 1, Desired: 3, Initial: true}
		if s.Service == "web-canary" {
			want.Ready, want.ServingTerminating = 0, 0
		}
		if s.Sample != want {
			t.Errorf("%s: %+v, want %+v", s.Service, s.Sample, want)
		}
	}
	got = c.slice(at(10), watch.Modified, endpoints("web-b", "web", map[string]EndpointState{"2": epReady, "3": epGoing}))
	if len(got) != 1 || got[0].Sample.Ready != 2 || got[0].Sample.ServingTerminating != 0 {
		t.Errorf("after the endpoint stopped serving: %+v", got)
	}
	if again := c.slice(at(20), watch.Modified, endpoints("web-b", "web", map[string]EndpointState{"2": epReady, "3": epGoing})); len(again) != 0 {
		t.Errorf("an unchanged count gave samples %+v", again)
	}
	if d := c.setDesired(at(30), 1); len(d) != 2 || d[0].Sample.Desired != 1 {
		t.Errorf("desired change: %+v", d)
	}
}

// rolloutOf builds a rollout of two terminated pods (one without preStop,
// one with a 5 s preStop) and a capacity track for Service web.
func rolloutOf(t *testing.T) *Rollout {
	naive := terminate(t, 30, false, 0, []string{"web"}, 1000, 0, nil)
	hardened := terminate(t, 30, true, 5, []string{"web"}, 6000, 0, nil)
	hardened.Pod, hardened.UID = "web-2", "uid-web-2"
	for i := range hardened.Events {
		hardened.Events[i].Recv = hardened.Events[i].Recv.Add(2000 * 1e6)
	}
	hardened.T0 = at(2000)
	tr := &CapacityTrack{Service: "web", Samples: []CapacitySample{
		{Recv: at(-500), Ready: 4, Desired: 4, Initial: true},
		{Recv: at(15), Ready: 3, ServingTerminating: 1, Desired: 4},
		{Recv: at(1000), Ready: 2, Desired: 4},
		{Recv: at(3000), Ready: 4, Desired: 4},
	}}
	return &Rollout{Workload: WorkloadRef{Kind: KindDeployment, Namespace: "shop", Name: "web"}, Services: []string{"web"},
		Budgets: []Budget{{Name: "web-pdb", DesiredHealthy: 3}}, T0: at(-100), T0Source: "restart sent", Start: at(-1000),
		End: at(9000), Pods: []*Timeline{hardened, naive}, Capacity: []*CapacityTrack{tr}, Ended: "complete", Complete: true, CompleteAt: at(8100)}
}

func TestComputeRolloutPodsCapacityAndEnd(t *testing.T) {
	v := ComputeRollout(rolloutOf(t))
	if v.Terminated != 2 || v.Raced != 1 || v.Killed != 0 || !v.Risk {
		t.Fatalf("terminated %d raced %d killed %d risk %v; findings %v", v.Terminated, v.Raced, v.Killed, v.Risk, v.Findings)
	}
	if v.Pods[0].Pod != "web-1" || !v.Pods[0].Raced || v.Pods[1].Raced || v.Pods[0].DeletedMs != 100 || v.Pods[1].DeletedMs != 2100 {
		t.Errorf("pods in deletion order with their verdicts: %+v", v.Pods)
	}
	if v.WorstPod != "web-1" || v.WorstWindowMs == nil || *v.WorstWindowMs != 5 {
		t.Errorf("worst window %v on %q, want 5 ms on web-1", v.WorstWindowMs, v.WorstPod)
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

func hasRolloutFinding(v RolloutVerdict, sub string) bool {
	for _, f := range v.Findings {
		if strings.Contains(f, sub) {
			return true
		}
	}
	return false
}

func TestComputeRolloutNotCompleteIsARisk(t *testing.T) {
	r := &Rollout{Workload: WorkloadRef{Kind: KindDeployment, Name: "web"}, Start: at(0), T0: at(0), End: at(40000),
		Ended: "timeout", LastStatus: "Waiting for deployment \"web\" rollout to finish: 1 out of 4 new replicas have been updated...",
		NeverReady: []string{"web-new-1"}}
	v := ComputeRollout(r)
	if !v.Risk || v.Complete || !hasRolloutFinding(v, "did not complete before --timeout") || !hasRolloutFinding(v, "never Ready while watched: web-new-1") {
		t.Errorf("verdict %+v", v)
	}
}

func TestComputeRolloutNothingStartedIsNoRisk(t *testing.T) {
	r := &Rollout{Workload: WorkloadRef{Kind: KindDeployment, Name: "web"}, Start: at(0), End: at(5000), Ended: "interrupted"}
	v := ComputeRollout(r)
	if v.Risk || !hasRolloutFinding(v, "was interrupted before any rollout started") {
		t.Errorf("verdict %+v", v)
	}
}

// Every pod verdict of a rollout is judged with the rollout's options:
// a 3 s preStop is short of the default 5 s propagation, and meets 2 s.
func TestRolloutPodVerdictsUseThePropagation(t *testing.T) {
	r := &Rollout{Pods: []*Timeline{terminate(t, 30, true, 3, []string{"web"}, 4000, 0, nil)}}
	short := ComputeRollout(r).Pods[0].Verdict
	met := ComputeRolloutWith(r, Options{Propagation: 2 * time.Second}).Pods[0].Verdict
	if short.ShortByMs == nil || met.ShortByMs != nil || met.PropagationMs != 2000 {
		t.Errorf("default: short by %v; --propagation 2s: short by %v, propagation %d ms", short.ShortByMs, met.ShortByMs, met.PropagationMs)
	}
}
