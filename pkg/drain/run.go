package drain

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	kdrain "k8s.io/kubectl/pkg/drain"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/drain/preflight"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/eviction"
	"github.com/kubectl-graceful/kubectl-graceful/pkg/listwatch"
)

// Drainer drains nodes: kubectl's filters (k8s.io/kubectl/pkg/drain)
// choose the pods, its own eviction loop evicts them.
type Drainer struct {
	// Client is any clientset; a plain one from kubernetes.NewForConfig
	// will do. Evictions and deletes are sent once each whatever its
	// transport (eviction.Send), so Attempts counts what the server saw and
	// a throttled eviction's Retry-After is shown and waited by the drain.
	// Reads are client-go's own: it sends a throttled read again itself
	// (up to 10 times, each Retry-After) before the drain sees an answer;
	// a transport that hands those back at once (the plugin's does) lets
	// the drain name the throttling and bound it by Timeout.
	Client kubernetes.Interface
	// Dynamic reads and restarts Argo Rollouts (argoproj.io/v1alpha1) for
	// the preflight and --surge; nil leaves them unread ("cannot tell").
	Dynamic dynamic.Interface
	Flags   preflight.Flags
	// PodSelector limits the drain to pods matching it (--pod-selector).
	PodSelector string
	// Timeout bounds each node's evictions, 0 = no limit (--timeout, as kubectl).
	Timeout time.Duration
	// DryRun stops after the preflight.
	DryRun bool
	// ServerDryRun, with DryRun, also sends each eviction with dryRun=All
	// and adds the server's answers to the preflight (--dry-run=server).
	ServerDryRun bool
	// UncordonOnFailure uncordons a node this drain cordoned when it fails.
	UncordonOnFailure bool
	// Backoff paces eviction retries after a 429.
	Backoff Backoff
	// PodWarnings, when set, adds the audit's error-level findings to the preflight.
	PodWarnings func(pod *corev1.Pod) []string
	// Events is told of the preflight, each pod's progress and each
	// node's result; a nil field tells nobody.
	Events Events

	// DeleteAfter, above 0, deletes a pod its PodDisruptionBudget still
	// refuses (a 429) once this long has passed since its node's evictions
	// started, with the pod's own grace period (--delete-after), telling
	// Events.BudgetOverridden first; 0 never does.
	DeleteAfter time.Duration
	// ExcludeFromLB labels each node node.kubernetes.io/exclude-from-external-load-balancers
	// before its evictions and waits out the load balancers' deregistration
	// delay before reporting it drained (--exclude-from-lb).
	ExcludeFromLB bool

	// MaxConcurrentNodes is how many nodes of a pool (DrainPool) are
	// drained at a time; below 1 means 1.
	MaxConcurrentNodes int

	// Watches, when set, shares watches another part of the process runs
	// (drain --watch's node watch publishes its own there): the drain
	// reads each node's pods (listwatch.PodsOnNode) and the
	// PodDisruptionBudgets (listwatch.Budgets) from it when it shares
	// them, and opens a watch of its own otherwise or once the shared one
	// ended.
	Watches *listwatch.Hub
}

// run is the state that one call of Drain or DrainPool shares across its
// nodes; the Drainer itself is configuration only, so that several
// goroutines may drain with one Drainer at once.
type run struct {
	*Drainer
	// cordons cordons every node of the call under one field manager.
	cordons *nodeCordon
	// pacer holds back a pool drain's evictions its budgets cannot admit
	// (nil for one node).
	pacer *budgetPacer
	// nodes follows a pool's nodes (nil for one node).
	nodes *nodeWatch
}

// newRun starts the state of one call of Drain or DrainPool.
func (d *Drainer) newRun() *run {
	return &run{Drainer: d, cordons: &nodeCordon{client: d.Client, backoff: d.Backoff, manager: drainManagerPrefix + rand.String(8)}}
}

// nodeRun is the state of one node's drain within a run; each goroutine of
// a pool drain has its own.
type nodeRun struct {
	*run
	// failures keeps the node's own API failures (RBAC, the cluster
	// unreachable to the end): its outcome is then an error, not a
	// refusal.
	failures *apiFailures
	// tracker is the pods of the node being evicted, kept for the pool's
	// count of pods evicted again; nil until the evictions start.
	tracker *podTracker
	// watched follows the node's pods from the evictions on; nil before.
	watched *nodePods
}

// node starts the state of one node's drain.
func (r *run) node() *nodeRun { return &nodeRun{run: r, failures: &apiFailures{}} }

// NodeResult is what happened to one node.
type NodeResult struct {
	Node      string            `json:"node"`
	Preflight *preflight.Report `json:"preflight"`
	Outcome   Outcome           `json:"outcome"`
	Pods      []PodProgress     `json:"pods"`
	// CordonedByUs is true when this drain's own patch cordoned the node
	// (preconditioned on a resourceVersion at which it was schedulable);
	// Uncordoned when it undid that after a failure.
	CordonedByUs bool `json:"cordonedByUs"`
	Uncordoned   bool `json:"uncordoned"`
	// UncordonSkipped says why --uncordon-on-failure left the node
	// cordoned although this drain had cordoned it (another client
	// cordoned it again, or uncordoned it already).
	UncordonSkipped string `json:"uncordonSkipped,omitempty"`
	// Surge are the rollouts --surge started before the evictions.
	Surge []SurgeResult `json:"surge,omitempty"`
	// After is the node read again once the drain ended; nil when the
	// drain changed nothing.
	After *NodeAfter `json:"after,omitempty"`
	// EvictionsStarted is true once the node was cordoned for evictions;
	// false when the drain ended before changing anything (a dry run, a
	// refusal, an interruption during the preflight).
	EvictionsStarted bool `json:"-"`
	// ExcludedFromLB is true when this drain's patch labelled the node
	// out of external load balancers (--exclude-from-lb); LBIncluded when
	// it removed the label after a failure, LBIncludeSkipped why it did
	// not; LBWait what it waited for the load balancers' deregistration.
	ExcludedFromLB   bool    `json:"excludedFromLB,omitempty"`
	LBIncluded       bool    `json:"lbIncluded,omitempty"`
	LBIncludeSkipped string  `json:"lbIncludeSkipped,omitempty"`
	LBWait           string  `json:"lbWait,omitempty"`
	DurationSeconds  float64 `json:"durationSeconds"`
	Error            string  `json:"error,omitempty"`

	start time.Time
	// excludedAt is when the node was seen labelled out of the load
	// balancers; zero without --exclude-from-lb.
	excludedAt time.Time
}

// preflightFlags are d.Flags with d.DeleteAfter, which the preflight
// judges the budgets' refusals by, and d.Timeout, which it says a blocked
// drain waits for.
func (d *Drainer) preflightFlags() preflight.Flags {
	f := d.Flags
	f.DeleteAfter, f.Timeout = d.DeleteAfter, d.Timeout
	return f
}

// clock sets DurationSeconds to the time since the node's drain started.
func (r *NodeResult) clock() { r.DurationSeconds = time.Since(r.start).Seconds() }

// Drain runs the preflight of node and, unless DryRun or a refusing
// blocker, cordons the node and evicts its pods, telling Events as
// it goes. It returns an error only when the API failed (the node result
// then has OutcomeError); stopping (ctx cancelled, --timeout) is an
// outcome, not an error.
func (d *Drainer) Drain(ctx context.Context, node *corev1.Node) (*NodeResult, error) {
	res, err := d.newRun().node().drain(ctx, node)
	res.clock()
	call(d.Events.NodeDone, res)
	return res, err
}

func (d *nodeRun) drain(ctx context.Context, node *corev1.Node) (*NodeResult, error) {
	res := &NodeResult{Node: node.Name, Pods: []PodProgress{}, start: time.Now()}
	in, err := ThroughOutage(ctx, d.Backoff, d.Timeout, func(ctx context.Context) (preflight.Input, error) {
		return preflight.Gather(ctx, d.Client, d.Dynamic, node, d.PodSelector, d.preflightFlags())
	})
	switch {
	case err != nil && ctx.Err() != nil:
		res.Outcome = OutcomeInterrupted
		return res, nil
	case apierrors.IsForbidden(err):
		// Refused before anything changed: a blocker, not an API error.
		res.Preflight = preflight.Check(preflight.Input{Node: node, Refused: err})
	case err != nil:
		return d.failed(res, err)
	default:
		in.RetryDelay, in.PodWarnings = d.Backoff.Base, d.PodWarnings
		res.Preflight = preflight.Check(in)
		d.warnLBNotExcluded(ctx, res.Preflight, in.Pods)
	}
	if d.DryRun && d.ServerDryRun {
		preflight.ServerDryRun(ctx, d.Client, res.Preflight, d.Flags)
	}
	call(d.Events.PreflightReady, res.Preflight)
	switch {
	case d.DryRun:
		res.Outcome = OutcomeDryRun
		return res, nil
	case res.Preflight.Refused():
		res.Outcome = OutcomeRefused
		return res, nil
	}
	return d.evict(ctx, node, res)
}

// evict cordons the node and evicts its pods, then summarises.
func (d *nodeRun) evict(ctx context.Context, node *corev1.Node, res *NodeResult) (*NodeResult, error) {
	nodeCtx, cancel := eviction.WithTimeout(ctx, d.Timeout)
	defer cancel()
	list, errs := d.podsForDeletion(nodeCtx, node.Name)
	if nodeCtx.Err() != nil {
		// Stopped before the cordon: nothing was changed.
		res.Outcome = stoppedOutcome(nodeCtx)
		return res, nil
	}
	if list == nil {
		return d.failed(res, listFailed(errs))
	} else if len(errs) > 0 {
		res.Outcome, res.Error = OutcomeRefused, utilerrors.NewAggregate(errs).Error()
		return res, nil
	}
	byUs, err := d.cordons.cordon(ctx, node.Name, node)
	if err != nil {
		return d.failed(res, err)
	}
	call2(d.Events.NodeCordoned, node.Name, byUs)
	res.CordonedByUs, res.EvictionsStarted = byUs, true
	if d.Flags.Surge {
		var ok bool
		if res.Surge, ok = d.surgeAll(nodeCtx, node.Name, res.Preflight.Surge); !ok {
			return d.stopBeforeEvictions(res, stoppedOutcome(nodeCtx))
		}
	}
	pdbOf, namespaces := budgetIndex(res)
	budgets := func() *budgetWatch { return d.watchBudgets(nodeCtx, namespaces) }
	return d.evictCordoned(nodeCtx, res, budgets, pdbOf)
}

// listFailed is the error of a list of pods that returned no list.
func listFailed(errs []error) error {
	if len(errs) == 0 {
		return errors.New("listing pods failed")
	}
	return errs[0]
}

// evictCordoned lists the pods of the cordoned node res.Node again (nothing
// new can be scheduled there now) and evicts them, their budgets followed
// by the watch budgets returns and pdbOf, each pod's change told to
// Events.PodChanged; then summarises.
func (d *nodeRun) evictCordoned(nodeCtx context.Context, res *NodeResult, budgets func() *budgetWatch,
	pdbOf map[string]string) (*NodeResult, error) {
	if err := d.excludeFromLB(nodeCtx, res); err != nil {
		return d.stop(res, newTracker(nil, nil), OutcomeError, err)
	}
	list, errs := d.podsForDeletion(nodeCtx, res.Node)
	if nodeCtx.Err() != nil {
		return d.stopBeforeEvictions(res, stoppedOutcome(nodeCtx))
	}
	if list == nil || len(errs) > 0 {
		if len(errs) == 0 {
			errs = []error{listFailed(errs)}
		}
		return d.stop(res, newTracker(nil, nil), OutcomeRefused, utilerrors.NewAggregate(errs))
	}
	pods := list.Pods()
	tracker := newTracker(pods, func(p PodProgress) { call2(d.Events.PodChanged, res.Node, p) })
	tracker.markSurged(surgedPods(res))
	d.tracker = tracker
	// Started after the list above, and from it: a pod listed there is
	// gone only once this watch saw it leave.
	d.watched = d.followPods(nodeCtx, res.Node, pods)
	e := &evictor{client: d.Client, flags: d.Flags, backoff: d.Backoff, tracker: tracker,
		pods: d.watched, budgets: budgets(), pdbOf: pdbOf, pacer: d.pacer, failures: d.failures}
	e.withDeleteAfter(res.Node, d.DeleteAfter, d.Events.BudgetOverridden)
	call2(d.Events.EvictionsStarted, res.Node, tracker.snapshot())
	err := e.evictAll(nodeCtx, pods)
	if err == nil && len(res.Preflight.WaitCompleted) > 0 {
		call2(d.Events.CompletionWaiting, res.Node, res.Preflight.WaitCompleted)
		err = d.waitCompleted(nodeCtx, res.Preflight.WaitCompleted)
	}
	return d.finish(nodeCtx, res, tracker, err)
}

// finish decides the outcome once every pod's eviction returned.
func (d *nodeRun) finish(nodeCtx context.Context, res *NodeResult, tracker *podTracker, err error) (*NodeResult, error) {
	node := res.Node
	switch {
	case err == nil:
		d.waitLB(nodeCtx, res)
		res.Outcome = OutcomeDrained
		res.Pods = tracker.snapshot()
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		res.After = d.readAfter(ctx, node, tracker, d.watched)
		switch {
		case !res.After.Known:
			res.Outcome, res.Error = OutcomeError, "its pods were evicted, but "+res.After.Unknown
			return res, withCause(res.Error, res.After.cause)
		case res.After.disturbed(false):
			res.Outcome = OutcomeUndone
		}
		return res, nil
	case nodeCtx.Err() != nil:
		return d.stop(res, tracker, stoppedOutcome(nodeCtx), nil)
	case d.failures.first() != nil:
		err = withCause(err.Error(), d.failures.first())
		r, serr := d.stop(res, tracker, OutcomeError, err)
		if serr != nil {
			return r, serr
		}
		return r, err
	default:
		return d.stop(res, tracker, OutcomeBlocked, nil)
	}
}

// stop records an unfinished drain: marks the pods still there and
// uncordons when asked and allowed.
func (d *nodeRun) stop(res *NodeResult, tracker *podTracker, outcome Outcome, err error) (*NodeResult, error) {
	res.Outcome = outcome
	if err != nil {
		res.Error = err.Error()
	}
	for _, p := range tracker.snapshot() {
		tracker.stopped(p.Namespace, p.Name)
	}
	// The command's context may be cancelled: undo with a fresh one.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	d.refreshGone(ctx, tracker)
	res.Pods = tracker.snapshot()
	if d.UncordonOnFailure && res.CordonedByUs {
		why, uerr := d.cordons.uncordon(ctx, res.Node)
		switch {
		case uerr != nil:
			res.Error = strings.TrimPrefix(res.Error+"; ", "; ") + "uncordon failed: " + uerr.Error()
		case why != "":
			res.UncordonSkipped = why
		default:
			res.Uncordoned = true
			call(d.Events.NodeUncordoned, res.Node)
		}
	}
	d.includeLB(ctx, res)
	res.After = d.readAfter(ctx, res.Node, tracker, nil)
	if !res.After.Known {
		// The cluster stayed unreachable: the summary says what is known.
		return res, withCause(res.After.Unknown, res.After.cause)
	}
	return res, nil
}

// getPod reads one pod, retried through a short outage: the reads of the
// summary once the drain stopped, never a wait for a pod to go.
func (d *nodeRun) getPod(ctx context.Context, namespace, name string) (*corev1.Pod, error) {
	return retryTransient(ctx, d.Backoff, d.failures, func() (*corev1.Pod, error) {
		return d.Client.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
	})
}

// refreshGone marks as gone the pods that left while the drain stopped,
// including one whose name a new pod holds now (by UID), and as
// terminating those found deleted since.
func (d *nodeRun) refreshGone(ctx context.Context, tracker *podTracker) {
	settled := time.Now().Add(lostSettle)
	for _, p := range tracker.snapshot() {
		if p.State == StateGone {
			continue
		}
		pod, err := d.getPod(ctx, p.Namespace, p.Name)
		if p.lost && p.State == StateStopped && err == nil && pod.DeletionTimestamp == nil && tracker.sameAsListed(pod) {
			pod, err = d.rereadLost(ctx, pod, settled)
			if err == nil && pod.DeletionTimestamp == nil && tracker.sameAsListed(pod) {
				tracker.set(p.Namespace, p.Name, StateStopped, fmt.Sprintf(
					"its eviction request was cut short by the stop; read again for %s after, the pod was not deleted", lostSettle))
			}
		}
		switch {
		case apierrors.IsNotFound(err) || err == nil && !tracker.sameAsListed(pod):
			tracker.set(p.Namespace, p.Name, StateGone, "")
		case err != nil:
			tracker.set(p.Namespace, p.Name, StateUnknown, "could not be read at the end: "+err.Error())
		case pod.DeletionTimestamp != nil && p.State != StateTerminating:
			// Deleted meanwhile: by an eviction whose answer the stop cut
			// short, or by someone else; it is not "not evicted".
			tracker.alreadyTerminating(pod)
		}
	}
}

// lostSettle is how long refreshGone reads again a pod whose eviction the
// stop cut short while the pod shows as not deleted: the API server may
// still be admitting the request when the first read arrives (the
// eviction's delete and our GET race), and "not evicted" must be what the
// cluster said after that, not before.
const lostSettle = 2 * time.Second

// rereadLost reads pod again every 200 ms until it is deleted or gone, a
// read fails, or until; it returns the last read, or ctx's error when ctx
// ended first (the pod is then not known to be not evicted).
func (d *nodeRun) rereadLost(ctx context.Context, pod *corev1.Pod, until time.Time) (*corev1.Pod, error) {
	for time.Now().Before(until) {
		if !sleep(ctx, 200*time.Millisecond) {
			return pod, ctx.Err()
		}
		got, err := d.getPod(ctx, pod.Namespace, pod.Name)
		if err != nil || got.DeletionTimestamp != nil || got.UID != pod.UID {
			return got, err
		}
		pod = got
	}
	return pod, nil
}

// failed records an API failure before anything was changed.
func (d *nodeRun) failed(res *NodeResult, err error) (*NodeResult, error) {
	res.Outcome, res.Error = OutcomeError, err.Error()
	return res, err
}

// helper builds kubectl's drain.Helper for one node, used for its pod
// filters alone (GetPodsForDeletion): which pods the drain evicts, as
// kubectl drain decides it, with ours (AdditionalFilters) after them.
func (d *nodeRun) helper(ctx context.Context) *kdrain.Helper {
	return &kdrain.Helper{
		Ctx:                 ctx,
		Client:              d.Client,
		Force:               d.Flags.Force,
		GracePeriodSeconds:  d.Flags.GracePeriodSeconds,
		IgnoreAllDaemonSets: d.Flags.IgnoreDaemonSets,
		DeleteEmptyDirData:  d.Flags.DeleteEmptyDirData,
		PodSelector:         d.PodSelector,
		ChunkSize:           500,
		DisableEviction:     d.Flags.DisableEviction,
		AdditionalFilters:   []kdrain.PodFilter{preflight.Filter(d.Flags)},
		Out:                 io.Discard,
		ErrOut:              io.Discard,
	}
}

// budgetIndex maps each pod of the results' preflight budgets
// ("namespace/pod") to its PDB ("namespace/name") and lists the namespaces
// to watch, in the order first seen: one node's, or every node's of a pool.
func budgetIndex(results ...*NodeResult) (map[string]string, []string) {
	pdbOf := map[string]string{}
	var namespaces []string
	for _, r := range results {
		for _, b := range r.Preflight.Budgets {
			for _, p := range b.PodsOnNode {
				pdbOf[b.Namespace+"/"+p] = b.Namespace + "/" + b.Name
			}
			if !slices.Contains(namespaces, b.Namespace) {
				namespaces = append(namespaces, b.Namespace)
			}
		}
	}
	return pdbOf, namespaces
}
