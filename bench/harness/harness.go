// Package harness runs the benchmarks against the local cluster:
// each of our commands side by side with what users run today, in the same
// run, and returns one table of results.
package harness

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-graceful/kubectl-graceful/bench/fixture"
	"github.com/kubectl-graceful/kubectl-graceful/internal/hostproc"
)

// BenchConfig says what to measure and where.
type BenchConfig struct {
	Scale Scale
	// Kubeconfig is the local cluster's kubeconfig file.
	Kubeconfig string
	// Binary is the kubectl-graceful binary under test.
	Binary string
	// Kubectl is the kubectl to compare with ("kubectl" from PATH).
	Kubectl string
	// OutDir receives the manifest files (OutDir/manifests, all fixture
	// objects; OutDir/manifests-docs, the manifest audit's documents).
	OutDir string
	// RepoRoot is the checkout (for `go test -bench ./pkg/timeline`).
	RepoRoot string
	// Keep leaves the fixture in the cluster after the run.
	Keep bool
	// Only, when not empty, names the benchmarks to run among "audit",
	// "fleet", "manifests", "drain", "pool", "drainwatch", "watch" and
	// "rollout"; the others' rows
	// say they were not selected. The live fixture is filled only for
	// "audit" (whole) and "fleet" (to Scale.FleetPods).
	Only []string
	// NoSettle measures without waiting for the machine to settle (the
	// smoke test's: it checks the table's shape, never its figures, and
	// runs beside the e2e suites, where the machine is rarely half idle).
	NoSettle bool
	// Log receives progress lines.
	Log io.Writer
}

// BenchReport is the outcome of a run.
type BenchReport struct {
	Rows []Row
	// Took is the wall time of the whole run.
	Took time.Duration
}

type harness struct {
	cfg         BenchConfig
	cs          kubernetes.Interface
	rest        *rest.Config
	manifestDir string
	// commands maps a subcommand ("audit", "watch pod", "drain node") to ""
	// when the binary has it, or to the reason it is not measured.
	commands map[string]string
	// timelineBench is pkg/timeline's benchmarks' output, once run.
	timelineBench *goBenchOutput
}

// Run fills the cluster, measures every benchmark and returns the table.
// A benchmark that cannot run (its command is not in the binary yet, a tool
// failed to build) gives rows marked not measured with the reason; Run
// itself fails only when the cluster cannot be filled.
func Run(ctx context.Context, cfg BenchConfig) (*BenchReport, error) {
	start := time.Now()
	if cfg.Kubectl == "" {
		cfg.Kubectl = "kubectl"
	}
	rc, err := clientcmd.BuildConfigFromFlags("", cfg.Kubeconfig)
	if err != nil {
		return nil, err
	}
	// No client-side rate limit: the fixture measures the apiserver, not client-go.
	rc.QPS, rc.Burst = -1, 0
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, err
	}
	h := &harness{cfg: cfg, cs: cs, rest: rc, commands: map[string]string{}}
	if launcher, err = h.buildCommand(ctx, "maxrss"); err != nil {
		return nil, err
	}
	for _, sub := range []string{"audit", "watch pod", "drain node", "watch"} {
		h.commands[sub] = h.probe(ctx, sub)
	}

	// The manifest audit always reads documents of the default-scale
	// fixture (2,400 of them), whatever the live scale: it needs no cluster.
	docsSet := fixture.Build(fixture.Default())
	h.manifestDir = filepath.Join(cfg.OutDir, "manifests-docs")
	docFiles, docs, err := docsSet.WriteManifests(h.manifestDir, cfg.Scale.ManifestDocs)
	if err != nil {
		return nil, err
	}
	set := fixture.Build(cfg.Scale.Fixture)
	if _, _, err := set.WriteManifests(filepath.Join(cfg.OutDir, "manifests"), 0); err != nil {
		return nil, err
	}

	var rows []Row
	fillRow := fmt.Sprintf("fixture: fill %d objects, %d pods Ready", len(set.Nodes)+len(set.Namespaces)+set.Spec.Documents(), set.Spec.Pods)
	// The fleet and the scaling steps fill smaller fixtures first; the full
	// fill then only adds objects.
	fleetRows := h.fleet(ctx)
	samples, err := h.scalingSteps(ctx)
	if err != nil {
		return nil, err
	}
	if h.selected("audit") {
		fill, err := fixture.Fill(ctx, cs, set, fixture.DefaultConcurrency, 15*time.Minute, cfg.Log)
		if err != nil {
			return nil, err
		}
		rows = append(rows, Row{What: fillRow, Ours: fmt.Sprintf("%s created, %s Ready", secs(fill.Created), secs(fill.Ready)), Target: "informational", Met: "-"})
	} else {
		rows = append(rows, notMeasured(fillRow, "informational", notSelected))
	}
	rows = append(rows, h.auditLive(ctx, samples)...)
	rows = append(rows, fleetRows...)
	rows = append(rows, h.auditManifests(ctx, docFiles, docs)...)
	rows = append(rows, h.fixManifests(ctx, docs)...)
	rows = append(rows, h.drain(ctx)...)
	rows = append(rows, h.pool(ctx)...)
	rows = append(rows, h.drainWatch(ctx)...)
	rows = append(rows, h.watch(ctx)...)
	rows = append(rows, h.rollout(ctx)...)
	rows = append(rows, h.realNode(ctx)...)
	if !cfg.Keep && (h.selected("audit") || h.selected("fleet")) {
		h.logf("deleting the fixture")
		if err := fixture.Delete(ctx, cs, set, 2*time.Minute); err != nil {
			h.logf("fixture cleanup: %v", err)
		}
	}
	took := time.Since(start)
	rows = append(rows, Row{What: "whole benchmark run (" + cfg.Scale.Name + " scale)", Ours: secs(took),
		Target: "< " + cfg.Scale.Budget.String(), Met: met(took < cfg.Scale.Budget)})
	return &BenchReport{Rows: rows, Took: took}, nil
}

// buildCommand builds ./bench/cmd/NAME into OutDir and returns its path.
// It builds every run (Go's build cache makes it quick): a binary left from
// an older checkout would not be this commit's.
func (h *harness) buildCommand(ctx context.Context, name string) (string, error) {
	bin := filepath.Join(h.cfg.OutDir, name)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./bench/cmd/"+name)
	cmd.Dir = h.cfg.RepoRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./bench/cmd/%s: %w: %s", name, err, hostproc.Tail(string(out), 5))
	}
	return bin, nil
}

// probe returns "" when the binary has subcommand sub (its --help names
// it), or the reason it is not measured.
func (h *harness) probe(ctx context.Context, sub string) string {
	if out, err := h.help(ctx, sub); err != nil || !strings.Contains(out, "graceful "+sub) {
		return "command not on main"
	}
	return ""
}

// hasFlag reports whether the binary's subcommand sub lists flag (such as
// "--max-concurrent-nodes") in its --help.
func (h *harness) hasFlag(ctx context.Context, sub, flag string) bool {
	out, err := h.help(ctx, sub)
	return err == nil && strings.Contains(out, flag+" ")
}

// help returns what `BINARY sub --help` prints.
func (h *harness) help(ctx context.Context, sub string) (string, error) {
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, h.cfg.Binary, append(strings.Fields(sub), "--help")...)
	cmd.Stdout = &out
	err := cmd.Run()
	return out.String(), err
}

func (h *harness) missing(sub string) string { return h.commands[sub] }

// notSelected is the reason given for the rows of a benchmark left out by
// BenchConfig.Only.
const notSelected = "not selected (-only)"

func (h *harness) selected(bench string) bool {
	return len(h.cfg.Only) == 0 || slices.Contains(h.cfg.Only, bench)
}

func (h *harness) logf(format string, args ...any) {
	fmt.Fprintf(h.cfg.Log, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}
