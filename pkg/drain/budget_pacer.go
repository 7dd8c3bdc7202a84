package drain

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// budgetPacer keeps the evictions of a pool drain, sent from many nodes at
// once, from asking a PodDisruptionBudget for a disruption its status says
// it cannot give: before each eviction it reserves one of the budget's
// status.disruptionsAllowed, counting the requests still in flight and the
// accepted evictions the status does not show yet, and waits for the
// budget to change when none is left. The Eviction API stays the judge:
// the pacer only holds requests back, and with no status known (the
// informer has not listed yet, or the pod has no budget) it holds nothing.
// An acceptance the budget's watch does not show yet counts as pending.
// See docs/drain.md (Draining a pool, step 4).
type budgetPacer struct {
	budgets *budgetWatch
	mu      sync.Mutex
	// inFlight counts per PDB the eviction requests sent and not answered.
	inFlight map[string]int
	// pending holds per PDB the pods whose eviction was accepted (or whose
	// answer was lost) and that its status does not show as disrupted yet,
	// with when.
	pending map[string]map[string]time.Time
}

// pendingExpiry is how long an accepted eviction counts against its
// budget when the status never shows it: an unhealthy pod is evicted
// without a disruption being recorded, and a relisting watch can skip the
// write; the disruption controller's next status then says the truth.
const pendingExpiry = 5 * time.Second

// pacerRecheck is how often a held eviction looks at its budget again
// without a change of it (a pending acceptance expiring).
const pacerRecheck = 500 * time.Millisecond

func newBudgetPacer(budgets *budgetWatch) *budgetPacer {
	return &budgetPacer{budgets: budgets, inFlight: map[string]int{}, pending: map[string]map[string]time.Time{}}
}

// reserve returns once an eviction of pod under pdb ("namespace/name") may
// be sent, having counted it in flight; waiting(cause) is called while it
// is held. It returns an error at once when ctx ends. A nil pacer or an
// empty pdb never holds.
func (p *budgetPacer) reserve(ctx context.Context, pdb string, waiting func(cause string)) error {
	if p == nil || pdb == "" {
		return nil
	}
	told := false
	for {
		allowed, changed := p.budgets.state(pdb)
		p.mu.Lock()
		p.expire(pdb)
		used := p.inFlight[pdb] + len(p.pending[pdb])
		if allowed < 0 || int(allowed) > used {
			p.inFlight[pdb]++
			p.mu.Unlock()
			return nil
		}
		p.mu.Unlock()
		if !told {
			told = true
			waiting(fmt.Sprintf("held back: PodDisruptionBudget %s allows %d disruption(s) now, %d of them taken by evictions of this drain; waiting for it to change",
				pdb, max(allowed, 0), used))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("eviction not sent: %w", context.Cause(ctx))
		case <-changed:
		case <-time.After(pacerRecheck):
		}
	}
}

// done records the answer to an eviction reserve let through: accepted
// (or lost, which may have been accepted) makes it pending until the
// budget's status shows pod as disrupted.
func (p *budgetPacer) done(pdb, pod string, mayBeAccepted bool) {
	if p == nil || pdb == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.inFlight[pdb]--
	if mayBeAccepted && !p.budgets.everDisrupted(pdb, pod) {
		if p.pending[pdb] == nil {
			p.pending[pdb] = map[string]time.Time{}
		}
		p.pending[pdb][pod] = time.Now()
	}
}

// expire drops the pending acceptances of pdb that its status showed, or
// that are older than pendingExpiry. Called with p.mu held.
func (p *budgetPacer) expire(pdb string) {
	for pod, at := range p.pending[pdb] {
		if p.budgets.everDisrupted(pdb, pod) || time.Since(at) > pendingExpiry {
			delete(p.pending[pdb], pod)
		}
	}
}
