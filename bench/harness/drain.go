package harness

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-graceful/kubectl-graceful/bench/fixture"
)

// drain compares `kubectl graceful drain node` with `kubectl drain
// --ignore-daemonsets --delete-emptydir-data` on two identical fresh nodes
// per run (alternating which goes first), and both with the ideal drain
// computed from the fixture and this cluster's measured termination and PDB
// recovery times.
func (h *harness) drain(ctx context.Context) []Row {
	s := h.cfg.Scale
	spec := fixture.DrainSpec{Pods: s.DrainPods, PDBs: s.DrainPDBs, ExitAfter: s.DrainExitAfter}
	timeRow := fmt.Sprintf("drain node, %d pods under %d PDBs: wall time (median of %d)", spec.Pods, spec.PDBs, s.DrainRuns)
	idealRow := "drain node: ours vs ideal (termination + PDB waits)"
	targets := []string{"<= 1.0x kubectl drain", "<= 1.2x ideal"}
	fail := func(err error) []Row {
		return []Row{notMeasured(timeRow, targets[0], err.Error()), notMeasured(idealRow, targets[1], err.Error())}
	}
	if !h.selected("drain") {
		return fail(errors.New(notSelected))
	}
	term, rec, err := h.calibrateDrain(ctx, spec)
	if err != nil {
		return fail(err)
	}
	waves := spec.PodsPerPDB() - 1 // maxUnavailable 1: one eviction per PDB at a time
	ideal := term + time.Duration(waves)*rec
	idealRow = fmt.Sprintf("drain node: ours vs ideal (termination %s + %d PDB waits x %s)", secs(term), waves, secs(rec))

	missing := h.missing("drain node")
	var ours, theirs []time.Duration
	for r := 0; r < s.DrainRuns; r++ {
		pools := make([]*fixture.DrainPool, 2)
		g, gctx := errgroup.WithContext(ctx)
		for i := range pools {
			g.Go(func() (err error) {
				pools[i], err = fixture.PrepareDrain(gctx, h.cs, h.cfg.Scale.Fixture.Name, fmt.Sprintf("%s-drain-r%d-%c", h.cfg.Scale.Fixture.Name, r, 'a'+i), spec, 3*time.Minute)
				return err
			})
		}
		err := g.Wait()
		if err == nil {
			oursCmd := command{argv: []string{h.cfg.Binary, "drain", "node", pools[0].Node, "--ignore-daemonsets", "--delete-emptydir-data", "--timeout", "5m", "--kubeconfig", h.cfg.Kubeconfig}}
			theirCmd := command{argv: []string{h.cfg.Kubectl, "drain", pools[1].Node, "--ignore-daemonsets", "--delete-emptydir-data", "--timeout", "5m", "--kubeconfig", h.cfg.Kubeconfig}}
			order := []*command{&oursCmd, &theirCmd}
			if r%2 == 1 {
				order = []*command{&theirCmd, &oursCmd}
			}
			for _, c := range order {
				if c == &oursCmd && missing != "" {
					continue
				}
				var res Measurement
				if res, err = measure(ctx, *c); err != nil {
					break
				}
				node := pools[0].Node
				if c == &oursCmd {
					ours = append(ours, res.Wall)
				} else {
					theirs, node = append(theirs, res.Wall), pools[1].Node
				}
				left := h.podsOn(ctx, node)
				h.logf("drain run %d: %s %s, %d pods left on %s", r, c.argv[1], secs(res.Wall), left, node)
				if left != 0 {
					err = fmt.Errorf("%s returned with %d pods still on %s", c.argv[0], left, node)
					break
				}
			}
		}
		for _, p := range pools {
			if p != nil {
				_ = p.Delete(ctx, h.cs)
			}
		}
		if err != nil {
			return fail(err)
		}
	}
	tm := median(theirs)
	if missing != "" {
		return []Row{
			{What: timeRow, Ours: NotMeasuredPrefix + missing, Theirs: secs(tm), Target: targets[0], Met: "-"},
			{What: idealRow, Ours: NotMeasuredPrefix + missing, Theirs: secs(ideal) + " ideal", Target: targets[1], Met: "-"},
		}
	}
	om := median(ours)
	return []Row{
		{What: timeRow, Ours: secs(om), Theirs: secs(tm), Ratio: ratio(om.Seconds(), tm.Seconds()), Target: targets[0], Met: met(om <= tm)},
		{What: idealRow, Ours: secs(om), Theirs: secs(ideal) + " ideal", Ratio: ratio(om.Seconds(), ideal.Seconds()), Target: targets[1], Met: met(om.Seconds() <= 1.2*ideal.Seconds())},
	}
}

// calibrateDrain measures, on a pool of its own with the same PDBs, how long
// a wave of evictions (one pod per PDB at once) takes to be gone and how
// long the PDBs take to allow the next wave.
func (h *harness) calibrateDrain(ctx context.Context, spec fixture.DrainSpec) (term, rec time.Duration, err error) {
	// Two pods per PDB: each wave evicts one and leaves one Ready.
	cal := fixture.DrainSpec{Pods: 2 * spec.PDBs, PDBs: spec.PDBs, ExitAfter: spec.ExitAfter}
	pool, err := fixture.PrepareDrain(ctx, h.cs, h.cfg.Scale.Fixture.Name, h.cfg.Scale.Fixture.Name+"-drain-cal", cal, 3*time.Minute)
	if pool != nil {
		defer func() { _ = pool.Delete(context.WithoutCancel(ctx), h.cs) }()
	}
	if err != nil {
		return 0, 0, err
	}
	term, rec, err = pool.Calibrate(ctx, h.cs, 2)
	h.logf("drain calibration (%d evictions at once): termination %s, PDB recovery %s", spec.PDBs, secs(term), secs(rec))
	return term, rec, err
}

// podsOn counts the pods bound to node that are not yet gone.
func (h *harness) podsOn(ctx context.Context, node string) int {
	pods, err := h.cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
	if err != nil {
		return -1
	}
	return len(pods.Items)
}
