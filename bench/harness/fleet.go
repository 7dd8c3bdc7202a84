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
// others. Each round runs the fleet and every single audit in rotating
// order, after one untimed warm-up round; the row is the fleet's median
// against the largest of the single clusters' medians.
func (h *harness) fleet(ctx context.Context) Row {
	s := h.cfg.Scale
	what := fleetRowName(s)
	switch {
	case !h.selected("fleet"):
		return notMeasured(what, fleetTarget, notSelected)
	case s.FleetClusters < 2:
		return notMeasured(what, fleetTarget, "not at the "+s.Name+" scale")
	case h.missing("audit") != "":
		return notMeasured(what, fleetTarget, h.missing("audit"))
	}
	kubeconfig, stop, err := h.fleetClusters(ctx)
	defer stop()
	if err != nil {
		return notMeasured(what, fleetTarget, err.Error())
	}
	names := fleetContexts(s.FleetClusters)
	audit := func(args ...string) command {
		return command{argv: append([]string{h.cfg.Binary, "audit", "-A", "--kubeconfig", kubeconfig}, args...), ok: []int{0, 2}}
	}
	all := []command{audit("--contexts", strings.Join(names, ","))}
	for _, n := range names {
		all = append(all, audit("--context", n))
	}
	runs := make([][]Measurement, len(all))
	for i := -1; i < s.AuditRuns; i++ {
		k := (i + 1) % len(all)
		for j := range all {
			c := (k + j) % len(all)
			res, err := measure(ctx, all[c])
			if err != nil {
				return notMeasured(what, fleetTarget, err.Error())
			}
			h.logf("fleet run %d: %s %s, %s", i, strings.Join(all[c].argv[5:], " "), secs(res.Wall), mb(res.MaxRSS))
			if i >= 0 {
				runs[c] = append(runs[c], res)
			}
		}
	}
	fleetWall, slowest := median(walls(runs[0])), time.Duration(0)
	for _, r := range runs[1:] {
		slowest = max(slowest, median(walls(r)))
	}
	return Row{What: what, Ours: secs(fleetWall), Theirs: secs(slowest) + " slowest single",
		Ratio: ratio(fleetWall.Seconds(), slowest.Seconds()), Target: fleetTarget, Met: met(fleetWall.Seconds() <= 1.5*slowest.Seconds())}
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
