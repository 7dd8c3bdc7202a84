package harness

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-graceful/kubectl-graceful/bench/fixture"
)

// maxConcurrentNodesFlag is the pool drain's flag for how many nodes drain
// at once; a binary without it drains a selector's nodes one after another.
const maxConcurrentNodesFlag = "--max-concurrent-nodes"

// poolRun is one measured drain of the pool.
type poolRun struct {
	wall  time.Duration
	tally evictionTally
	// m is the drain's measurement (peak RSS, exit code).
	m Measurement
	// requests is the apiserver's count of the drain's requests
	// (drainRequests), when asked for; own is what the drain sent
	// itself, from its -v 6 log (clientRequests), when it was logged.
	requests int64
	own      requestCounts
}

// poolResult is everything the pool rows report.
type poolResult struct {
	ours, theirs                   poolRun
	budgets                        []poolBudget
	termination, recovery          time.Duration
	prepare, calibrate, resets, rm time.Duration
}

// pool compares `kubectl graceful drain node -l SELECTOR
// --max-concurrent-nodes N` with `kubectl drain -l SELECTOR` on the same
// node pool, one after the other (the pool reset in between), by wall
// time and by evictions per pod counted from a pod watch, and ours with the
// ideal the budgets' waves allow on this cluster.
func (h *harness) pool(ctx context.Context) []Row {
	s := h.cfg.Scale
	spec, c := s.Pool, s.PoolConcurrentNodes
	what := fmt.Sprintf("drain pool, %d nodes, %d pods under %d PDBs", spec.Nodes, spec.Pods, spec.PDBs)
	timeRow := fmt.Sprintf("%s: wall time, %s %d vs kubectl drain -l", what, maxConcurrentNodesFlag, c)
	evRow := "drain pool: evictions per pod (pod watch), pods evicted again"
	idealRow := "drain pool: ours vs ideal (budgets' waves)"
	costRow := "drain pool: time the pool rows took"
	targets := []string{"<= 0.5x kubectl drain -l", "1.00, none again", "<= 1.3x ideal", "informational"}
	fail := func(reason string) []Row {
		return []Row{notMeasured(timeRow, targets[0], reason), notMeasured(evRow, targets[1], reason),
			notMeasured(idealRow, targets[2], reason), notMeasured(costRow, targets[3], reason)}
	}
	if !h.selected("pool") {
		return fail(notSelected)
	}
	if reason := h.missing("drain node"); reason != "" {
		return fail(reason)
	}
	ourC, oursNote := c, ""
	if !h.hasFlag(ctx, "drain node", maxConcurrentNodesFlag) {
		ourC, oursNote = 1, " (flag absent: sequential)"
		timeRow = fmt.Sprintf("%s: wall time, ours without %s (flag absent: sequential) vs kubectl drain -l", what, maxConcurrentNodesFlag)
	}
	start := time.Now()
	res, err := h.poolLive(ctx, spec, ourC)
	if err != nil {
		return fail(err.Error())
	}
	took := time.Since(start)
	// The ideal of the pool drain asked for, c nodes at a time, whether or
	// not the binary can do it. The measured termination is that of a full
	// wave of the budgets (in this fixture as many pods as c nodes hold), so
	// the same model at one node at a time would overstate a sequential
	// drain's floor.
	ideal, err := idealPool(res.budgets, spec.Nodes, c, res.termination, res.recovery)
	if err != nil {
		return fail(err.Error())
	}
	idealRow = fmt.Sprintf("drain pool: ours vs ideal (%d waves of PDB %s: termination %s + %d x recovery %s; %d rounds of %d nodes at a time)",
		ideal.Waves, ideal.Budget, secs(res.termination), max(ideal.Waves-1, 0), secs(res.recovery), ideal.Rounds, c)
	o, t := res.ours, res.theirs
	return []Row{
		{What: timeRow, Ours: secs(o.wall) + oursNote, Theirs: secs(t.wall), Ratio: ratio(o.wall.Seconds(), t.wall.Seconds()),
			Target: targets[0], Met: met(o.wall.Seconds() <= 0.5*t.wall.Seconds())},
		{What: evRow, Ours: tallyCell(o.tally) + oursNote, Theirs: tallyCell(t.tally) + " kubectl", Target: targets[1],
			Met: met(o.tally.Evicted == o.tally.AtStart && o.tally.EvictedAgain == 0)},
		{What: idealRow, Ours: secs(o.wall) + oursNote, Theirs: secs(ideal.Took) + " ideal", Ratio: ratio(o.wall.Seconds(), ideal.Took.Seconds()),
			Target: targets[2], Met: met(o.wall.Seconds() <= 1.3*ideal.Took.Seconds())},
		{What: fmt.Sprintf("%s (prepare %s, calibrate %s, resets %s, two drains, cleanup %s)", costRow, secs(res.prepare), secs(res.calibrate), secs(res.resets), secs(res.rm)),
			Ours: secs(took), Target: targets[3], Met: "-"},
	}
}

// tallyCell formats a tally as "1.00 (120 evictions/120 pods, 0 again)".
func tallyCell(t evictionTally) string {
	return fmt.Sprintf("%.2f (%d evictions/%d pods, %d again)", t.PerPod(), t.Evicted, t.AtStart, t.EvictedAgain)
}

// poolLive prepares the pool, reads its budgets, calibrates the cluster's
// wave times, drains it with ours (concurrent nodes at a time; 1 runs
// without the flag) and with kubectl, resetting it before each, and
// deletes it.
func (h *harness) poolLive(ctx context.Context, spec fixture.PoolSpec, concurrent int) (res poolResult, err error) {
	name := h.cfg.Scale.Fixture.Name + "-pool"
	t0 := time.Now()
	p, err := fixture.PreparePool(ctx, h.cs, h.cfg.Scale.Fixture.Name, name, spec, 3*time.Minute)
	if p != nil {
		defer func() {
			t := time.Now()
			if derr := p.Delete(context.WithoutCancel(ctx), h.cs); derr != nil {
				h.logf("node pool cleanup: %v", derr)
			}
			res.rm = time.Since(t)
		}()
	}
	if err != nil {
		return res, err
	}
	res.prepare = time.Since(t0)
	if res.budgets, err = h.poolBudgets(ctx, p); err != nil {
		return res, err
	}
	t0 = time.Now()
	if res.termination, res.recovery, err = p.Calibrate(ctx, h.cs, h.cfg.Scale.PoolCalibrations); err != nil {
		return res, err
	}
	res.calibrate = time.Since(t0)
	h.logf("node pool %s: prepared in %s; a full wave: termination %s, recovery %s", p.Name, secs(res.prepare), secs(res.termination), secs(res.recovery))
	common := []string{"--ignore-daemonsets", "--delete-emptydir-data", "--timeout", "5m", "--kubeconfig", h.cfg.Kubeconfig}
	ours := append([]string{h.cfg.Binary, "drain", "node", "-l", p.Selector()}, common...)
	if concurrent > 1 {
		ours = append(ours, maxConcurrentNodesFlag, fmt.Sprint(concurrent))
	}
	theirs := append([]string{h.cfg.Kubectl, "drain", "-l", p.Selector()}, common...)
	for _, run := range []struct {
		argv []string
		out  *poolRun
	}{{ours, &res.ours}, {theirs, &res.theirs}} {
		reset, err := p.Reset(ctx, h.cs, 3*time.Minute)
		if err != nil {
			return res, err
		}
		res.resets += reset
		if *run.out, err = h.poolDrain(ctx, p, command{argv: run.argv}, false); err != nil {
			return res, err
		}
		h.logf("node pool drain by %s: %s, %s (reset took %s)", run.argv[0], secs(run.out.wall), tallyCell(run.out.tally), secs(reset))
	}
	return res, nil
}

// poolDrain runs c on the reset pool under a pod watch and checks that
// it left no pod on the pool; with requests, it also counts the drain's
// API requests (drainRequests, read before and after, settled).
func (h *harness) poolDrain(ctx context.Context, p *fixture.NodePool, c command, requests bool) (poolRun, error) {
	argv := c.argv
	pw, err := startPoolWatch(ctx, h.cs, p.Namespace)
	if err != nil {
		return poolRun{}, err
	}
	var before, after requestCounts
	if requests {
		if before, err = drainRequests(ctx, h.cs); err != nil {
			pw.stop()
			return poolRun{}, err
		}
	}
	m, err := measure(ctx, c)
	if requests && err == nil {
		_, err = settledCount(ctx, func(ctx context.Context) (int64, error) {
			after, err = drainRequests(ctx, h.cs)
			return after.total(), err
		})
		h.logf("%s: API requests %s", argv[0], after.minus(before).top(16))
	}
	pool := map[string]bool{}
	left := 0
	for _, n := range p.Nodes {
		pool[n] = true
		left += h.podsOn(ctx, n)
	}
	if err == nil && left != 0 {
		err = fmt.Errorf("%s returned with %d pods still on the pool", argv[0], left)
	}
	wait := time.Minute
	if err != nil {
		wait = time.Second // only to stop the watch
	}
	tally, werr := pw.finish(ctx, pool, wait)
	if err = errors.Join(err, werr); err != nil {
		return poolRun{}, err
	}
	return poolRun{wall: m.Wall, tally: tally, m: m, requests: after.minus(before).clients()}, nil
}

// poolBudgets reads, on the settled pool, each PDB's pods on the pool's
// nodes and the disruptions it allows.
func (h *harness) poolBudgets(ctx context.Context, p *fixture.NodePool) ([]poolBudget, error) {
	pdbs, err := h.cs.PolicyV1().PodDisruptionBudgets(p.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	pods, err := h.cs.CoreV1().Pods(p.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var out []poolBudget
	for _, b := range pdbs.Items {
		sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector)
		if err != nil {
			return nil, err
		}
		pb := poolBudget{Name: b.Name, AllowedPerWave: int(b.Status.DisruptionsAllowed)}
		for _, pod := range pods.Items {
			if sel.Matches(labels.Set(pod.Labels)) && pod.DeletionTimestamp == nil && slices.Contains(p.Nodes, pod.Spec.NodeName) {
				pb.PodsInPool++
			}
		}
		out = append(out, pb)
	}
	return out, nil
}
