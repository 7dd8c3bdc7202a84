package harness

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-graceful/kubectl-graceful/bench/fixture"
	"github.com/kubectl-graceful/kubectl-graceful/internal/localcluster"
)

// fleetTarget is the fleet audit's target against the slowest single
// cluster's audit.
const fleetTarget = "<= 1.5x slowest single"

// fleetRowName is the fleet row's What.
func fleetRowName(s Scale) string {
	if s.FleetClusters < 2 {
		return "fleet: audit -A --contexts wall time vs slowest single cluster"
	}
	return fmt.Sprintf("fleet of %d clusters x %d pods: audit -A --contexts wall time vs slowest single cluster", s.FleetClusters, s.FleetPods)
}

// fleet measures `audit -A --contexts c0,...` over Scale.FleetClusters
// local clusters against `audit -A --context ci` of each alone: the
// checkout's cluster and FleetClusters-1 siblings (localcluster's
// ClusterOptions.Sibling, started here and stopped afterwards unless Keep),
// each holding the fixture at FleetPods pods in the live fixture's
// proportions. It runs before the live audit's fixture grows past
// FleetPods, so that the checkout's cluster holds the same objects as the
// others. The protobuf floor is measured the same way (bench/cmd/floor
// with -contexts, then -context for each alone): every local cluster's
// control plane shares the machine's cores with the audits, so the
// floor's own fleet ratio is the most any client can get here. Each round
// runs every command in rotating order, after one untimed warm-up round;
// the rows compare medians: the fleet against the largest of the single
// clusters' medians (the target), the floor's fleet the same way,
// and our fleet against the floor's.
func (h *harness) fleet(ctx context.Context) []Row {
	s := h.cfg.Scale
	what := fleetRowName(s)
	fleetOf := "fleet"
	if s.FleetClusters >= 2 {
		fleetOf = fmt.Sprintf("fleet of %d clusters", s.FleetClusters)
	}
	floorWhat := fleetOf + ": protobuf floor -contexts wall time vs its slowest single cluster (this machine's limit: the clusters share its cores)"
	versusWhat := fleetOf + ": audit -A --contexts vs protobuf floor -contexts, wall time"
	fail := func(reason string) []Row {
		return []Row{notMeasured(what, fleetTarget, reason), notMeasured(floorWhat, "informational", reason), notMeasured(versusWhat, "informational", reason)}
	}
	switch {
	case !h.selected("fleet"):
		return fail(notSelected)
	case s.FleetClusters < 2:
		return fail("not at the " + s.Name + " scale")
	case h.missing("audit") != "":
		return fail(h.missing("audit"))
	}
	floorBin, err := h.buildCommand(ctx, "floor")
	if err != nil {
		return fail(err.Error())
	}
	kubeconfig, stop, err := h.fleetClusters(ctx)
	defer stop()
	if err != nil {
		return fail(err.Error())
	}
	names := fleetContexts(s.FleetClusters)
	ours := func(args ...string) command {
		return command{argv: append([]string{h.cfg.Binary, "audit", "-A", "--kubeconfig", kubeconfig}, args...), ok: []int{0, 2}}
	}
	floor := func(args ...string) command {
		return command{argv: append([]string{floorBin, "-kubeconfig", kubeconfig, "-page", "500"}, args...)}
	}
	all := []command{ours("--contexts", strings.Join(names, ",")), floor("-contexts", strings.Join(names, ","))}
	for _, n := range names {
		all = append(all, ours("--context", n), floor("-context", n))
	}
	runs, err := h.rotate(ctx, all)
	if err != nil {
		return fail(err.Error())
	}
	// all[0] and all[1] are the fleets; then ours and the floor alternate.
	fleet, floorFleet := median(walls(runs[0])), median(walls(runs[1]))
	var slowest, floorSlowest time.Duration
	for i := 2; i < len(runs); i += 2 {
		slowest = max(slowest, median(walls(runs[i])))
		floorSlowest = max(floorSlowest, median(walls(runs[i+1])))
	}
	return []Row{
		{What: what, Ours: secs(fleet), Theirs: secs(slowest) + " slowest single",
			Ratio: ratio(fleet.Seconds(), slowest.Seconds()), Target: fleetTarget, Met: met(fleet.Seconds() <= 1.5*slowest.Seconds())},
		{What: floorWhat, Ours: secs(floorFleet), Theirs: secs(floorSlowest) + " slowest single",
			Ratio: ratio(floorFleet.Seconds(), floorSlowest.Seconds()), Target: "informational", Met: "-"},
		{What: versusWhat, Ours: secs(fleet), Theirs: secs(floorFleet) + " floor",
			Ratio: ratio(fleet.Seconds(), floorFleet.Seconds()), Target: "informational", Met: "-"},
	}
}

// rotate runs every command of all once per round, Scale.AuditRuns rounds
// after one untimed warm-up round, each round starting one command later,
// and returns each command's timed measurements.
func (h *harness) rotate(ctx context.Context, all []command) ([][]Measurement, error) {
	h.settle(ctx, "fleet")
	runs := make([][]Measurement, len(all))
	for i := -1; i < h.cfg.Scale.AuditRuns; i++ {
		k := (i + 1) % len(all)
		for j := range all {
			c := (k + j) % len(all)
			res, err := measure(ctx, all[c])
			if err != nil {
				return nil, err
			}
			h.logf("fleet run %d: %s %s, %s", i, strings.Join(all[c].argv[1:], " "), secs(res.Wall), mb(res.MaxRSS))
			if i >= 0 {
				runs[c] = append(runs[c], res)
			}
		}
	}
	return runs, nil
}

// fleetContexts are the fleet kubeconfig's context names.
func fleetContexts(n int) []string {
	var names []string
	for i := range n {
		names = append(names, fmt.Sprintf("fleet-%d", i))
	}
	return names
}

// fleetClusters fills the checkout's cluster and FleetClusters-1 siblings
// with the fixture at FleetPods pods and writes one kubeconfig naming them
// fleet-0 (the checkout's) to fleet-N. stop stops the siblings (not with
// Keep); call it even when err is not nil.
func (h *harness) fleetClusters(ctx context.Context) (kubeconfig string, stop func(), err error) {
	s := h.cfg.Scale
	opts, err := localcluster.DefaultOptions(h.cfg.RepoRoot, h.cfg.Log)
	if err != nil {
		return "", func() {}, err
	}
	var started []localcluster.ClusterOptions
	stop = func() {
		if h.cfg.Keep {
			return
		}
		for _, o := range started {
			if err := localcluster.Down(context.WithoutCancel(ctx), o); err != nil {
				h.logf("stopping %s: %v", o.Name, err)
			}
		}
	}
	spec := stepSpec(s.Fixture, s.FleetPods)
	kubeconfigs := []string{h.cfg.Kubeconfig}
	for i := 1; i < s.FleetClusters; i++ {
		o := opts.Sibling(fmt.Sprintf("bench-fleet-%d", i))
		o.Nodes = 1 // the fixture brings its own nodes
		h.logf("starting sibling cluster %s", o.Name)
		started = append(started, o)
		c, err := localcluster.Up(ctx, o)
		if err != nil {
			return "", stop, err
		}
		kubeconfigs = append(kubeconfigs, c.Kubeconfig)
	}
	for i, kc := range kubeconfigs {
		if err := h.fillFleetMember(ctx, kc, spec); err != nil {
			return "", stop, fmt.Errorf("fleet cluster %d: %w", i, err)
		}
	}
	path := filepath.Join(h.cfg.OutDir, "fleet-kubeconfig")
	return path, stop, mergeKubeconfigs(kubeconfigs, fleetContexts(len(kubeconfigs)), path)
}

// fillFleetMember fills the cluster of kubeconfig with the fixture of spec.
func (h *harness) fillFleetMember(ctx context.Context, kubeconfig string, spec fixture.Spec) error {
	rc, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	rc.QPS, rc.Burst = -1, 0
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return err
	}
	_, err = fixture.Fill(ctx, cs, fixture.Build(spec), fixture.DefaultConcurrency, 15*time.Minute, h.cfg.Log)
	return err
}

// mergeKubeconfigs writes to path one kubeconfig holding the current
// context of each file of files, renamed names[i] (its cluster and user
// too).
func mergeKubeconfigs(files, names []string, path string) error {
	out := clientcmdapi.NewConfig()
	for i, f := range files {
		c, err := clientcmd.LoadFromFile(f)
		if err != nil {
			return err
		}
		ctx, ok := c.Contexts[c.CurrentContext]
		if !ok {
			return fmt.Errorf("%s: no current context", f)
		}
		n := names[i]
		out.Clusters[n], out.AuthInfos[n] = c.Clusters[ctx.Cluster], c.AuthInfos[ctx.AuthInfo]
		out.Contexts[n] = &clientcmdapi.Context{Cluster: n, AuthInfo: n}
	}
	out.CurrentContext = names[0]
	return clientcmd.WriteToFile(*out, path)
}
