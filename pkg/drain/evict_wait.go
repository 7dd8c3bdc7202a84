package drain

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/eviction"
)

// record shows a refusal the drain retries (a PodDisruptionBudget's 429,
// throttling, a terminating namespace) as the pod's state, with its cause
// and, for throttling, the wait before the next attempt.
func (e *evictor) record(pod *corev1.Pod, a eviction.Answer, backoff time.Duration) {
	ns, name := pod.Namespace, pod.Name
	switch a.Kind {
	case eviction.NamespaceTerminating:
		e.tracker.set(ns, name, StateNamespaceTerminating, a.Cause)
	case eviction.Throttled:
		e.tracker.set(ns, name, StateBlocked, throttledCause(a, max(backoff, a.RetryAfter)))
	default:
		e.tracker.set(ns, name, StateBlocked, a.Cause+e.disruptedNote(pod))
	}
}

// waitRetry waits before the next request for pod after answer a: the
// backoff of its refusals so far (or, after a lost answer, of its lost
// answers), at least a throttling answer's Retry-After; after a budget's
// 429 no longer than until the budget's watch shows it allowing a
// disruption; and no longer than until the node's pod watch shows the pod
// gone or terminating (deleted by another client, by its namespace). It
// reports false at once when ctx ends. sent is the budget's changeCount
// when the refused request went: while it stands, a status allowing a
// disruption is older than the API server's refusal (another pod's
// eviction took the disruption), so the wait goes on until the next
// status instead of sending again at once, which, with every pod of the
// budget waiting on it, sent a burst of requests bound to be refused.
func (e *evictor) waitRetry(ctx context.Context, pod *corev1.Pod, a eviction.Answer, r *podRetries, sent uint64) bool {
	wait := max(e.backoff.delay(r.refused), a.RetryAfter)
	pdb := ""
	switch a.Kind {
	case eviction.Lost:
		wait = e.backoff.delay(r.lost)
	case eviction.BudgetRefused:
		pdb = e.pdbOf[podKey(pod)]
	}
	t := time.NewTimer(e.untilOverride(wait, a))
	defer t.Stop()
	for {
		allowed, budgetChanged := e.budgets.state(pdb)
		latest, gone, failed, podChanged := e.pods.current(pod)
		fresh := pdb == "" || e.budgets.changeCount(pdb) != sent
		if allowed > 0 && fresh || gone || failed != nil || latest.DeletionTimestamp != nil {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
			return true
		case <-budgetChanged:
		case <-podChanged:
		}
	}
}

// throttledCause says that the API server throttled an eviction (a 429
// without a budget cause: API Priority and Fairness, or a proxy), with the
// wait asked for and the one before the next attempt.
func throttledCause(a eviction.Answer, next time.Duration) string {
	asked := "no Retry-After"
	if a.RetryAfter > 0 {
		asked = "Retry-After " + a.RetryAfter.String()
	}
	return fmt.Sprintf("throttled by the API server (HTTP 429, %s): next attempt in %s", asked, next)
}

// disruptedNote explains a refusal by a budget that counts the pod itself
// as disrupted: an earlier eviction was admitted (the API server records the
// pod in status.disruptedPods before deleting it) but the pod was not
// deleted, as when the connection dropped mid-request.
func (e *evictor) disruptedNote(pod *corev1.Pod) string {
	since, ok := e.budgets.disruptedSince(e.pdbOf[podKey(pod)], pod.Name)
	if !ok {
		return ""
	}
	return fmt.Sprintf("; the budget counts this pod as disrupted since %s (status.disruptedPods: an admitted eviction whose delete did not happen) until the disruption controller drops it 2 min later",
		since.UTC().Format(time.TimeOnly)+"Z")
}
