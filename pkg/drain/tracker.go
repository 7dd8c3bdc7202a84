package drain

import (
	"cmp"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
)

// State is where one pod stands in the drain (PodProgress.State). Its JSON
// values are stable kebab-case words; the text output shows them as
// words ("answer lost", "not evicted").
type State string

// Pod states shown while draining and in the summary.
const (
	StatePending  State = "pending"  // not tried yet
	StateEvicting State = "evicting" // eviction request sent
	StateBlocked  State = "blocked"  // 429: a PodDisruptionBudget refused it; retried
	// StateNamespaceTerminating: 403 with cause NamespaceTerminating; the
	// namespace's deletion will delete the pod, retried with the backoff.
	StateNamespaceTerminating State = "namespace-terminating"
	// StateAnswerLost: the eviction request failed on the way (the API
	// server unreachable, a 5xx); the pod is read again before anything else.
	StateAnswerLost State = "answer-lost"
	// StateUnknown: the pod could not be read at the end.
	StateUnknown     State = "state-unknown"
	StateTerminating State = "terminating" // eviction accepted (or pod deleted): waiting for it to go
	StateGone        State = "gone"        // the pod object is gone
	StateFailed      State = "failed"      // the eviction or the wait failed for good
	StateStopped     State = "not-evicted" // the drain stopped (Ctrl-C, --timeout) before it went
)

// PodProgress is what the drain knows of one pod.
type PodProgress struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	State     State  `json:"state"`
	// Attempts counts the eviction requests sent.
	Attempts int `json:"attempts"`
	// Cause is the last reason it is not gone: the 429's DisruptionBudget
	// cause, or the error that ended it.
	Cause string `json:"cause,omitempty"`
	// StartedSeconds is when the first eviction was sent, in seconds since
	// the drain of the node started; DurationSeconds how long until it was
	// gone (or until the drain stopped).
	StartedSeconds  float64 `json:"startedSeconds"`
	DurationSeconds float64 `json:"durationSeconds"`
	// GoneBy says who removed a gone pod: GoneByEviction (our eviction or,
	// with --disable-eviction, our delete was accepted), GoneByNamespace or
	// GoneByOther. Empty until the pod is gone.
	GoneBy GoneBy `json:"goneBy,omitempty"`
	// WaitsOn says, for a pod that was already terminating (its
	// deletionTimestamp set by someone else), what its deletion waits on:
	// "finalizer example.com/hold", or its grace deadline.
	WaitsOn string `json:"waitsOn,omitempty"`
	// DeletedPastBudget is true once --delete-after deleted the pod
	// although its PodDisruptionBudget (Budget, "namespace/name", "" when
	// not known) still refused its eviction.
	DeletedPastBudget bool   `json:"deletedPastBudget,omitempty"`
	Budget            string `json:"budget,omitempty"`
	// Accepted is true once the API server accepted this drain's eviction
	// of the pod (or its delete: --disable-eviction, --delete-after),
	// whether the pod is gone yet or still terminating; false for a pod
	// another client removed. The summaries' "evicted" counts these.
	Accepted bool `json:"accepted,omitempty"`

	// nsTerminating: the last answer was the namespace's 403. surged: its
	// workload was rolled by this drain's --surge.
	nsTerminating, lost, surged bool
	// held: Cause is the pool pacer's wait, dropped once a request goes.
	held    bool
	started time.Time
}

// GoneBy says who removed a gone pod (PodProgress.GoneBy), a stable
// kebab-case value in JSON; the text output shows it as words ("deleted
// by another client").
type GoneBy string

// Who removed a gone pod (PodProgress.GoneBy).
const (
	GoneByEviction  GoneBy = "evicted"
	GoneByNamespace GoneBy = "deleted-by-namespace"
	GoneByOther     GoneBy = "deleted-by-other-client"
	// GoneByLostAnswer: our eviction's answer was lost and the pod was then
	// found gone or terminating: most likely our eviction, not checked.
	GoneByLostAnswer GoneBy = "evicted-answer-lost"
	// GoneByDeleteAfter: our delete past the pod's budget (--delete-after)
	// was accepted.
	GoneByDeleteAfter GoneBy = "deleted-past-budget"
	// GoneBySurge: a pod of a workload this drain rolled (--surge), removed
	// by its controller as the rollout replaced it, before any eviction.
	GoneBySurge GoneBy = "replaced-by-surge"
)

// podTracker records each pod's progress; the goroutines of the pods'
// evictions feed it, and Events.PodChanged is told each change.
type podTracker struct {
	mu       sync.Mutex
	start    time.Time
	pods     map[string]*PodProgress
	onChange func(p PodProgress)
	// listed are the pods as listed when the evictions started.
	listed map[string]*corev1.Pod
}

// newTracker starts tracking pods; onChange (may be nil) is called, outside
// the lock, with a copy of a pod's progress each time its state or cause
// changes.
func newTracker(pods []corev1.Pod, onChange func(p PodProgress)) *podTracker {
	t := &podTracker{start: time.Now(), pods: map[string]*PodProgress{}, onChange: onChange, listed: map[string]*corev1.Pod{}}
	for i := range pods {
		t.listed[podKey(&pods[i])] = &pods[i]
		t.pods[podKey(&pods[i])] = &PodProgress{Namespace: pods[i].Namespace, Name: pods[i].Name, State: StatePending}
	}
	return t
}

// markSurged marks the pods of keys as those of a workload this drain
// rolled (goneBy).
func (t *podTracker) markSurged(keys map[string]bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k := range keys {
		if p, ok := t.pods[k]; ok {
			p.surged = true
		}
	}
}

// sameAsListed reports whether pod is the very pod listed when the
// evictions started, not one recreated under its name since (a
// StatefulSet's pod keeps its name): the API server gives each object a
// new UID. A pod that was not listed, or listed without a UID, is judged
// by its name alone.
func (t *podTracker) sameAsListed(pod *corev1.Pod) bool {
	listed, ok := t.listed[podKey(pod)]
	return !ok || listed.UID == "" || listed.UID == pod.UID
}

// update applies fn to the pod's progress and reports a change.
func (t *podTracker) update(namespace, name string, fn func(p *PodProgress)) {
	t.mu.Lock()
	p, ok := t.pods[namespace+"/"+name]
	if !ok {
		p = &PodProgress{Namespace: namespace, Name: name, State: StatePending}
		t.pods[namespace+"/"+name] = p
	}
	before := string(p.State) + "\x00" + p.Cause
	wasFinal := final(p.State)
	fn(p)
	if !wasFinal && !p.started.IsZero() {
		p.DurationSeconds = time.Since(p.started).Seconds()
	}
	changed := string(p.State)+"\x00"+p.Cause != before
	snapshot := *p
	t.mu.Unlock()
	if changed && t.onChange != nil {
		t.onChange(snapshot)
	}
}

// attempt records an eviction request about to be sent.
func (t *podTracker) attempt(namespace, name string) {
	t.update(namespace, name, func(p *PodProgress) {
		p.Attempts++
		t.begin(p)
		if p.State == StatePending {
			p.State = StateEvicting
		}
		if p.held {
			p.held, p.Cause = false, ""
		}
	})
}

// begin dates p's start, unless it has one.
func (t *podTracker) begin(p *PodProgress) {
	if p.started.IsZero() {
		p.started = time.Now()
		p.StartedSeconds = p.started.Sub(t.start).Seconds()
	}
}

// set moves a pod to state with cause, unless it is already gone.
func (t *podTracker) set(namespace, name string, state State, cause string) {
	t.update(namespace, name, func(p *PodProgress) {
		if p.State == StateGone {
			return
		}
		if state != StateStopped {
			t.begin(p)
		}
		p.State, p.Cause = state, cause
		switch {
		case state == StateNamespaceTerminating:
			p.nsTerminating = true
		case state == StateAnswerLost:
			p.lost = true
		case state == StateGone:
			p.GoneBy = goneBy(p)
		}
	})
}

// waiting gives a pod not sent yet (or refused before) the cause of its
// wait, keeping its state and start.
func (t *podTracker) waiting(namespace, name, cause string) {
	t.update(namespace, name, func(p *PodProgress) {
		if p.State == StatePending || p.State == StateBlocked {
			p.Cause, p.held = cause, true
		}
	})
}

// accept records that our eviction (or delete) of the pod was accepted.
func (t *podTracker) accept(namespace, name, cause string) {
	t.update(namespace, name, func(p *PodProgress) {
		if p.State != StateGone {
			p.Accepted, p.State, p.Cause = true, StateTerminating, cause
		}
	})
}

// goneBy says who removed p: us when our request was accepted, else the
// namespace's deletion when it refused us for that, else another client.
func goneBy(p *PodProgress) GoneBy {
	switch {
	case p.Accepted && p.DeletedPastBudget:
		return GoneByDeleteAfter
	case p.Accepted:
		return GoneByEviction
	case p.lost:
		return GoneByLostAnswer
	case p.nsTerminating:
		return GoneByNamespace
	case p.surged:
		return GoneBySurge
	default:
		return GoneByOther
	}
}

// snapshot returns every pod's progress sorted by namespace and name.
func (t *podTracker) snapshot() []PodProgress {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]PodProgress, 0, len(t.pods))
	for _, p := range t.pods {
		if !p.started.IsZero() && !final(p.State) {
			p.DurationSeconds = time.Since(p.started).Seconds()
		}
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b PodProgress) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// stopped marks a pod the drain gave up on because it was stopped, keeping
// the last cause (the PDB that held it) when there is one.
func (t *podTracker) stopped(namespace, name string) {
	t.update(namespace, name, func(p *PodProgress) {
		if p.State == StateGone || p.State == StateTerminating || p.State == StateFailed {
			return
		}
		if p.State == StateEvicting {
			// The request was out when the stop cut it: the API server may
			// have admitted it. The pod is read again (refreshGone).
			p.lost = true
			p.Cause = "its eviction request was cut short by the stop: the answer is unknown"
		}
		p.State = StateStopped
		p.Cause = cmp.Or(p.Cause, "not tried before the drain stopped")
	})
}

// final reports whether a pod's state no longer changes its duration.
func final(state State) bool {
	return state == StateGone || state == StateFailed || state == StateStopped
}

// InFlight reports whether the pod's eviction was sent and not finished:
// the request is out, or it was accepted (by us: not a pod found
// terminating) and the pod is not gone yet.
func (p PodProgress) InFlight() bool {
	return p.State == StateEvicting || p.State == StateTerminating && p.Accepted
}

// podKey is the "namespace/name" the tracker and the preflight key pods by.
func podKey(pod *corev1.Pod) string { return pod.Namespace + "/" + pod.Name }

// pdbName is the "namespace/name" the preflight's Budgets and the budget
// watch key PodDisruptionBudgets by.
func pdbName(pdb *policyv1.PodDisruptionBudget) string { return pdb.Namespace + "/" + pdb.Name }

// wasAccepted reports whether an eviction (or delete) of the pod
// "namespace/name" by this drain was accepted.
func (t *podTracker) wasAccepted(key string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.pods[key]
	return ok && p.Accepted
}
