package drain

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestTrackerInFlightCountsSentAndAcceptedEvictions(t *testing.T) {
	pod := func(name string) corev1.Pod {
		return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name}}
	}
	tr := newTracker([]corev1.Pod{pod("a"), pod("b"), pod("c")}, nil)
	tr.attempt("shop", "a")                         // request sent
	tr.attempt("shop", "b")                         // sent, then accepted
	tr.accept("shop", "b", "")                      // waiting for it to go
	tr.attempt("shop", "c")                         // sent, then refused
	tr.set("shop", "c", StateBlocked, "budget web") // waits for a retry, not in flight
	if got := inFlight(tr); got != 2 {
		t.Errorf("InFlight = %d, want 2 (a evicting, b terminating)", got)
	}
	tr.set("shop", "b", StateGone, "")
	if got := inFlight(tr); got != 1 {
		t.Errorf("after b is gone InFlight = %d, want 1", got)
	}
}

// A pod the pool pacer held back shows why until its request goes.
func TestTrackerDropsThePacersCauseOnceSent(t *testing.T) {
	tr := newTracker(nil, nil)
	tr.waiting("shop", "web-a", "held back: PodDisruptionBudget shop/web allows 0 disruption(s) now")
	if p := tr.snapshot()[0]; p.State != StatePending || p.Cause == "" || p.StartedSeconds != 0 {
		t.Fatalf("held pod: %+v", p)
	}
	tr.attempt("shop", "web-a")
	if p := tr.snapshot()[0]; p.State != StateEvicting || p.Cause != "" {
		t.Errorf("sent pod keeps the pacer's cause: %+v", p)
	}
}

// A request out when the drain stops may have been admitted: the pod is
// not "not tried", and once found gone it is not "deleted by another client".
func TestTrackerStopCuttingARequest(t *testing.T) {
	tr := newTracker(nil, nil)
	tr.attempt("shop", "web-a")
	tr.stopped("shop", "web-a")
	p := tr.snapshot()[0]
	if p.State != StateStopped || !strings.Contains(p.Cause, "answer is unknown") {
		t.Fatalf("cut request: %+v", p)
	}
	tr.set("shop", "web-a", StateGone, "")
	if p := tr.snapshot()[0]; p.GoneBy != GoneByLostAnswer {
		t.Errorf("gone after a cut request: goneBy %q, want %q", p.GoneBy, GoneByLostAnswer)
	}
}

// inFlight counts the pods of tr whose eviction is in flight.
func inFlight(tr *podTracker) int {
	n := 0
	for _, p := range tr.snapshot() {
		if p.InFlight() {
			n++
		}
	}
	return n
}
