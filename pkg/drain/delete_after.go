package drain

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/eviction"
)

// BudgetOverride is a pod that --delete-after deletes although its
// PodDisruptionBudget still refuses its eviction (Events.BudgetOverridden).
type BudgetOverride struct {
	Node      string `json:"node"`
	Namespace string `json:"namespace"`
	Pod       string `json:"pod"`
	// Budget is the refusing PodDisruptionBudget, "namespace/name", or ""
	// when the preflight did not see the pod under one (the 429 does not
	// name it).
	Budget string `json:"budget,omitempty"`
	// AfterSeconds is the --delete-after that passed, in seconds.
	AfterSeconds float64 `json:"afterSeconds"`
}

// overrideCause is the cause of a pod deleted past its budget.
func overrideCause(o BudgetOverride) string {
	budget := "its PodDisruptionBudget (not named by the API server)"
	if o.Budget != "" {
		budget = "PodDisruptionBudget " + o.Budget
	}
	return fmt.Sprintf("deleted past %s after --delete-after %s: its eviction was still refused", budget,
		time.Duration(o.AfterSeconds*float64(time.Second)))
}

// untilOverride caps a wait before the next eviction of a budget-refused
// pod at the --delete-after deadline, so that the eviction sent at the
// deadline asks the budget one last time.
func (e *evictor) untilOverride(wait time.Duration, a eviction.Answer) time.Duration {
	if a.Kind != eviction.BudgetRefused || e.deleteAt.IsZero() {
		return wait
	}
	return max(min(wait, time.Until(e.deleteAt)), 0)
}

// override deletes pod, whose eviction its budget just refused past the
// deadline, telling overriding first, then waits for it to go. The delete
// carries the pod's UID as a precondition (a pod recreated under the name
// is never deleted in its place) and no grace period: the pod's own
// terminationGracePeriodSeconds applies, whatever --grace-period says
// (DeleteOptions.GracePeriodSeconds unset, pkg/registry/core/pod/strategy.go
// CheckGracefulDelete).
func (e *evictor) override(ctx context.Context, pod *corev1.Pod) error {
	o := BudgetOverride{Node: e.node, Namespace: pod.Namespace, Pod: pod.Name, Budget: e.pdbOf[podKey(pod)],
		AfterSeconds: e.deleteAfter.Seconds()}
	call(e.overriding, o)
	e.tracker.overriding(pod.Namespace, pod.Name, o.Budget)
	opts := e.deleteOptions(pod, false)
	opts.GracePeriodSeconds = nil
	done, err := e.deleteOnce(ctx, pod, pod, opts, overrideCause(o))
	if !done {
		return e.fail(pod, err)
	}
	return err
}

// reserve is the pool pacer's reserve (budgetPacer.reserve), held no
// longer than the --delete-after deadline: past it the eviction is sent
// anyway, counted in flight, so that the budget answers for itself before
// the pod is deleted.
func (e *evictor) reserve(ctx context.Context, pod *corev1.Pod) error {
	pdb := e.pdbOf[podKey(pod)]
	waiting := func(cause string) { e.tracker.waiting(pod.Namespace, pod.Name, cause) }
	if e.deleteAt.IsZero() || e.pacer == nil || pdb == "" {
		return e.pacer.reserve(ctx, pdb, waiting)
	}
	held, cancel := context.WithDeadline(ctx, e.deleteAt)
	defer cancel()
	err := e.pacer.reserve(held, pdb, waiting)
	if err != nil && ctx.Err() == nil {
		e.pacer.take(pdb)
		return nil
	}
	return err
}

// take counts one eviction under pdb in flight without waiting.
func (p *budgetPacer) take(pdb string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.inFlight[pdb]++
}

// withDeleteAfter arms --delete-after for node's evictions, starting now;
// after 0 leaves it off.
func (e *evictor) withDeleteAfter(node string, after time.Duration, overriding func(BudgetOverride)) {
	e.node, e.overriding = node, overriding
	if after > 0 {
		e.deleteAt, e.deleteAfter = time.Now().Add(after), after
	}
}

// overriding records that the pod is being deleted past budget.
func (t *podTracker) overriding(namespace, name, budget string) {
	t.update(namespace, name, func(p *PodProgress) { p.DeletedPastBudget, p.Budget = true, budget })
}
