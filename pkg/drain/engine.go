package drain

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
)

// evictor evicts the pods of one node: each pod in its own goroutine, as
// kubectl's drain does, each with its own retries. What it learns goes to
// the tracker; it reads no pod by itself: the node's pod watch (pods)
// gives each pod's latest version and says when it is gone.
type evictor struct {
	client  kubernetes.Interface
	flags   preflight.Flags
	backoff Backoff
	tracker *podTracker
	pods    *nodePods
	// budgets and pdbOf ("namespace/pod" -> "namespace/pdb") end the wait
	// after a budget's 429 as soon as the budget allows a disruption; both
	// may be nil.
	budgets *budgetWatch
	pdbOf   map[string]string
	// pacer, in a pool drain, holds an eviction back while its PDB's
	// status allows no disruption; nil for one node.
	pacer *budgetPacer
	// failures keeps the node's API failures (RBAC, the cluster
	// unreachable to the end).
	failures *apiFailures
	// node is the node drained. deleteAt, unless zero, is when a pod its
	// budget still refuses is deleted (Drainer.DeleteAfter after the
	// evictions started); overriding, may be nil, is told first.
	node        string
	deleteAt    time.Time
	deleteAfter time.Duration
	overriding  func(BudgetOverride)
}

// evictAll evicts pods: in waves by priority with --order priority
// (evictWaves), else all at once.
func (e *evictor) evictAll(ctx context.Context, pods []corev1.Pod) error {
	if e.flags.Order == preflight.OrderPriority {
		return e.evictWaves(ctx, pods)
	}
	return e.evictTogether(ctx, pods)
}

// evictTogether evicts pods, all at once, and returns when each is gone, failed
// for good, or ctx ended; the error joins the pods' errors (nil when every
// pod is gone).
func (e *evictor) evictTogether(ctx context.Context, pods []corev1.Pod) error {
	errs := make([]error, len(pods))
	var wg sync.WaitGroup
	for i := range pods {
		wg.Go(func() {
			if err := e.evict(ctx, &pods[i]); err != nil {
				errs[i] = fmt.Errorf("error when evicting pods/%q -n %q: %w", pods[i].Name, pods[i].Namespace, err)
			}
		})
	}
	wg.Wait()
	return utilerrors.NewAggregate(errs)
}
