package harness

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/bench/fixture"
)

// drainWatchBench is the -only name of the `drain node --watch` pool rows.
const drainWatchBench = "drainwatch"

// watchPoolResult is what the `drain --watch` pool rows report: on the
// full pool, our drain with and without --watch and kubectl's; on a pool
// of the same nodes holding a tenth of the pods, our drain --watch again,
// for its watches.
type watchPoolResult struct {
	watch, plain, kubectl poolRun
	// lat is every watch line's delivery-to-line delay (textLatencies),
	// watches the full run's API watches, fewerWatches the smaller pool's.
	lat                   []time.Duration
	before                int
	watches, fewerWatches watchCount
	// watchPhases and plainPhases split the wall time of our drain with
	// and without --watch.
	watchPhases, plainPhases drainPhases
	fewer                    fixture.PoolSpec
	budgets                  []poolBudget
	termination, recovery    time.Duration
}

// drainWatch measures `kubectl graceful drain node -l POOL --watch` and
// the same drain without --watch against `kubectl drain -l POOL` on
// Scale.WatchPool: the watch's delivery-to-line delay, peak
// RSS and API watches (the same at a tenth of the pods), its cost in wall
// time; the API requests per evicted pod of each; evictions per pod; and
// the drain's wall time against the ideal of the budgets' waves and
// against kubectl.
func (h *harness) drainWatch(ctx context.Context) []Row {
	s := h.cfg.Scale
	spec, c := s.WatchPool, s.WatchPoolConcurrentNodes
	fewer := tenth(spec)
	head := fmt.Sprintf("drain --watch, pool of %d nodes, %d pods (exiting %s after deletion), %d Services, %d PDBs (maxUnavailable %d), %s %d",
		spec.Nodes, spec.Pods, spec.ExitAfter, spec.PDBs, spec.PDBs, spec.MaxUnavailable, maxConcurrentNodesFlag, c)
	what := []string{
		head + ": delivery-to-line p99 (text lines, against the fastest)",
		"drain --watch: peak RSS",
		fmt.Sprintf("drain --watch: API watch targets (its -v 6 log: path, labelSelector, fieldSelector), %d pods vs %d", spec.Pods, fewer.Pods),
		"drain --watch: wall time vs the same drain without --watch",
		"drain pool, watch fixture: API requests per evicted pod, ours --watch vs kubectl drain -l (each tool's own, from its -v 6 log; beside it the API server's count of every client in the window)",
		"drain pool, watch fixture: API requests per evicted pod, ours vs kubectl drain -l (own; API server)",
		"drain pool, watch fixture: evictions per pod (pod watch), ours --watch; ours",
		"drain pool, watch fixture: wall time, ours vs ideal (budgets' waves)",
		"drain pool, watch fixture: wall time, ours vs kubectl drain -l",
		"drain pool, watch fixture: time these rows took",
	}
	targets := []string{"<= 100 ms", "< 300 MB", "same", "<= 1.1x", "<= 1.10 own (floor 1.00)", "<= 1.10 own (floor 1.00)",
		"1.00, none again", "<= 1.1x ideal", "<= 0.3x kubectl drain -l", "informational"}
	fail := func(reason string) []Row {
		rows := make([]Row, len(what))
		for i := range what {
			rows[i] = notMeasured(what[i], targets[i], reason)
		}
		return rows
	}
	switch {
	case !h.selected(drainWatchBench):
		return fail(notSelected)
	case spec.Nodes == 0:
		return fail(fmt.Sprintf("skipped at %s scale (no watch pool: the smoke test runs beside the tests)", s.Name))
	case h.missing("drain node") != "":
		return fail(h.missing("drain node"))
	case !h.hasFlag(ctx, "drain node", "--watch"):
		return fail("drain node has no --watch")
	}
	start := time.Now()
	res, err := h.drainWatchLive(ctx, spec, fewer, c)
	if err != nil {
		return fail(err.Error())
	}
	ideal, err := idealPool(res.budgets, spec.Nodes, c, res.termination, res.recovery)
	if err != nil {
		return fail(err.Error())
	}
	what[7] = fmt.Sprintf("drain pool, watch fixture: wall time, ours vs ideal (%d waves of PDB %s: termination %s + %d x recovery %s; %d rounds of %d nodes)",
		ideal.Waves, ideal.Budget, secs(res.termination), max(ideal.Waves-1, 0), secs(res.recovery), ideal.Rounds, c)
	return res.rows(what, targets, ideal, time.Since(start))
}

// rows formats the result as the table's rows, in the order of what.
func (r watchPoolResult) rows(what, targets []string, ideal poolIdeal, took time.Duration) []Row {
	w, p, k := r.watch, r.plain, r.kubectl
	p99 := percentile(r.lat, 99)
	perPod := func(run poolRun) float64 { return float64(run.own.total()) / float64(max(run.tally.Evicted, 1)) }
	reqCell := func(run poolRun) string {
		evicted := max(run.tally.Evicted, 1)
		return fmt.Sprintf("%.2f own (%d requests/%d evictions); %.2f API server, every client (%d)",
			perPod(run), run.own.total(), run.tally.Evicted, float64(run.requests)/float64(evicted), run.requests)
	}
	once := func(t evictionTally) bool { return t.Evicted == t.AtStart && t.EvictedAgain == 0 }
	return []Row{
		{What: what[0], Ours: ms(p99) + fmt.Sprintf(" (%d lines; %d printed before the watch's clock, left out)", len(r.lat), r.before), Target: targets[0], Met: met(len(r.lat) > 0 && p99 <= 100*time.Millisecond)},
		{What: what[1], Ours: mb(w.m.MaxRSS), Target: targets[1], Met: met(w.m.MaxRSS < 300e6)},
		{What: what[2], Ours: watchCell(r.watches), Theirs: watchCell(r.fewerWatches) + fmt.Sprintf(" at %d pods", r.fewer.Pods), Target: targets[2],
			Met: met(r.watches.targets > 0 && r.watches.targets == r.fewerWatches.targets)},
		{What: what[3], Ours: fmt.Sprintf("%s (%s; CPU %s)", secs(w.wall), r.watchPhases, secs(w.m.CPU)),
			Theirs: fmt.Sprintf("%s without (%s; CPU %s)", secs(p.wall), r.plainPhases, secs(p.m.CPU)), Ratio: ratio(w.wall.Seconds(), p.wall.Seconds()),
			Target: targets[3], Met: met(w.wall.Seconds() <= 1.1*p.wall.Seconds())},
		{What: what[4], Ours: reqCell(w), Theirs: reqCell(k) + " kubectl", Ratio: ratio(perPod(w), perPod(k)),
			Target: targets[4], Met: met(perPod(w) <= 1.10)},
		{What: what[5], Ours: reqCell(p), Theirs: reqCell(k) + " kubectl", Ratio: ratio(perPod(p), perPod(k)),
			Target: targets[5], Met: met(perPod(p) <= 1.10)},
		{What: what[6], Ours: tallyCell(w.tally) + "; " + tallyCell(p.tally), Theirs: tallyCell(k.tally) + " kubectl",
			Target: targets[6], Met: met(once(w.tally) && once(p.tally))},
		{What: what[7], Ours: secs(p.wall), Theirs: secs(ideal.Took) + " ideal", Ratio: ratio(p.wall.Seconds(), ideal.Took.Seconds()),
			Target: targets[7], Met: met(p.wall.Seconds() <= 1.1*ideal.Took.Seconds())},
		{What: what[8], Ours: secs(p.wall), Theirs: secs(k.wall) + " kubectl", Ratio: ratio(p.wall.Seconds(), k.wall.Seconds()),
			Target: targets[8], Met: met(p.wall.Seconds() <= 0.3*k.wall.Seconds())},
		{What: what[9], Ours: secs(took), Target: targets[9], Met: "-"},
	}
}

// tenth is spec with a tenth of the Deployments (at least one), on the
// same number of nodes: the pool at which the watches are counted again.
// A spec without Deployments (no pool at this scale) is returned as is.
func tenth(spec fixture.PoolSpec) fixture.PoolSpec {
	if spec.PDBs < 1 {
		return spec
	}
	f := spec
	f.PDBs = max(spec.PDBs/10, 1)
	f.Pods = f.PDBs * spec.Replicas()
	return f
}

// drainWatchLive runs our drain --watch on the smaller pool, then on the
// full pool our drain --watch, our drain and kubectl's, each after a
// reset.
func (h *harness) drainWatchLive(ctx context.Context, spec, fewer fixture.PoolSpec, concurrent int) (res watchPoolResult, err error) {
	res.fewer = fewer
	name := h.cfg.Scale.Fixture.Name
	err = h.withPool(ctx, name+"-wpool-few", fewer, func(p *fixture.NodePool) error {
		run, lines, err := h.watchPoolDrain(ctx, p, h.oursArgv(p, concurrent, true), true)
		res.fewerWatches = lines.watches
		h.logf("watch pool %s: drain --watch %s, %s", p.Name, secs(run.wall), watchCell(lines.watches))
		return err
	})
	if err != nil {
		return res, err
	}
	err = h.withPool(ctx, name+"-wpool", spec, func(p *fixture.NodePool) error {
		if res.budgets, err = h.poolBudgets(ctx, p); err != nil {
			return err
		}
		if res.termination, res.recovery, err = p.Calibrate(ctx, h.cs, h.cfg.Scale.PoolCalibrations); err != nil {
			return err
		}
		h.logf("watch pool %s: a full wave: termination %s, recovery %s", p.Name, secs(res.termination), secs(res.recovery))
		var lines watchLines
		if res.watch, lines, err = h.watchPoolDrain(ctx, p, h.oursArgv(p, concurrent, true), true); err != nil {
			return err
		}
		res.lat, res.before, res.watches, res.watchPhases = lines.lat, lines.before, lines.watches, lines.phases
		if res.plain, lines, err = h.watchPoolDrain(ctx, p, h.oursArgv(p, concurrent, false), false); err != nil {
			return err
		}
		res.plainPhases = lines.phases
		res.kubectl, _, err = h.watchPoolDrain(ctx, p, append([]string{h.cfg.Kubectl, "drain", "-l", p.Selector()}, h.drainFlags()...), false)
		return err
	})
	return res, err
}

// withPool prepares a node pool, runs f on it and deletes it.
func (h *harness) withPool(ctx context.Context, name string, spec fixture.PoolSpec, f func(*fixture.NodePool) error) error {
	t0 := time.Now()
	p, err := fixture.PreparePool(ctx, h.cs, h.cfg.Scale.Fixture.Name, name, spec, 5*time.Minute)
	if p != nil {
		defer func() {
			if derr := p.Delete(context.WithoutCancel(ctx), h.cs); derr != nil {
				h.logf("node pool cleanup: %v", derr)
			}
		}()
	}
	if err != nil {
		return err
	}
	h.logf("node pool %s: %d pods on %d nodes prepared in %s", p.Name, spec.Pods, spec.Nodes, secs(time.Since(t0)))
	return f(p)
}

// drainFlags are the flags every drain of a pool gets, ours and kubectl's.
func (h *harness) drainFlags() []string {
	return []string{"--ignore-daemonsets", "--delete-emptydir-data", "--timeout", "10m", "--kubeconfig", h.cfg.Kubeconfig}
}

// oursArgv is our pool drain, concurrent nodes at a time; with watch,
// --watch, --wide (the watch's lines keep their ms since the first
// deletion, which the line delays are measured by) and -v 6 (client-go's
// request log, where its watches are counted: the logging is a cost the
// run without --watch does not pay).
func (h *harness) oursArgv(p *fixture.NodePool, concurrent int, watch bool) []string {
	argv := append([]string{h.cfg.Binary, "drain", "node", "-l", p.Selector(), maxConcurrentNodesFlag, fmt.Sprint(concurrent)}, h.drainFlags()...)
	if watch {
		argv = append(argv, "--watch", "--wide", "-v", "6")
	}
	return argv
}

// watchLines is what a drain --watch printed: its lines' delays and its
// watches.
type watchLines struct {
	lat []time.Duration
	// before is how many lines were printed before the watch's clock
	// started, left out of lat.
	before  int
	watches watchCount
	phases  drainPhases
}

// watchPoolDrain resets the pool, runs argv on it (counting its API
// requests), and waits until the pods are back Ready on the spares. With
// watch, argv is a drain --watch, which may exit 2 for a risk it saw.
func (h *harness) watchPoolDrain(ctx context.Context, p *fixture.NodePool, argv []string, watch bool) (poolRun, watchLines, error) {
	reset, err := p.Reset(ctx, h.cs, 5*time.Minute)
	if err != nil {
		return poolRun{}, watchLines{}, err
	}
	clock, stderr := &lineClock{}, &bytes.Buffer{}
	// Every run's output is timed, for its phases, and its requests
	// logged (-v 6), so that each tool's own are counted apart from the
	// controllers' in the same window.
	if !slices.Contains(argv, "-v") {
		argv = append(slices.Clip(argv), "-v", "6")
	}
	c := command{argv: argv, stdout: clock, stderr: stderr}
	if watch {
		c.ok = []int{0, 2}
	}
	run, err := h.poolDrain(ctx, p, c, true)
	if err != nil {
		return run, watchLines{}, err
	}
	run.own = clientRequests(stderr.String())
	log := filepath.Join(h.cfg.OutDir, fmt.Sprintf("drain-requests-%s-%s-%s.log", filepath.Base(argv[0]), p.Name, map[bool]string{true: "watch", false: "plain"}[watch]))
	if err := os.WriteFile(log, stderr.Bytes(), 0o644); err != nil {
		return run, watchLines{}, err
	}
	h.logf("%s: its own requests (-v 6 log, %s) %s", argv[0], log, run.own.top(16))
	t0 := time.Now()
	if err := p.WaitReadyOnSpares(ctx, h.cs, 3*time.Minute); err != nil {
		return run, watchLines{}, err
	}
	lines := watchLines{lat: clock.textLatencies(), before: clock.beforeClock(), watches: countWatches(stderr.String()), phases: clock.phases(run.wall)}
	h.logf("watch pool %s: %s %s: %s (%s; CPU %s), %s, %d requests, exit %d (reset %s, Ready on the spares %s later)", p.Name, argv[0], argv[1],
		secs(run.wall), lines.phases, secs(run.m.CPU), tallyCell(run.tally), run.requests, run.m.ExitCode, secs(reset), secs(time.Since(t0)))
	if !watch {
		return run, lines, nil
	}
	out := filepath.Join(h.cfg.OutDir, "drain-watch-"+p.Name+".txt")
	if err := os.WriteFile(out, clock.text(), 0o644); err != nil {
		return run, lines, err
	}
	if len(lines.lat) == 0 {
		return run, lines, fmt.Errorf("drain --watch printed no watch lines (its output: %s)", out)
	}
	return run, lines, nil
}
