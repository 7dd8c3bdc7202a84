// Command bench runs the benchmarks on the project's local
// cluster and prints one table: what, ours, theirs or floor, ratio, target,
// met. `make bench` runs it from the repository root:
//
//	go run ./bench/cmd/bench -scale default -binary bin/kubectl-graceful
//
// It also writes the table with the run's date, machine and commit as
// Markdown to _output/bench/results.md, for bench/RESULTS.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/bench/harness"
	"github.com/kubectl-graceful/kubectl-graceful/internal/localcluster"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run() error {
	scaleName := flag.String("scale", os.Getenv("BENCH_SCALE"), "default, small, tiny or large (default $BENCH_SCALE, else default)")
	binary := flag.String("binary", "bin/kubectl-graceful", "kubectl-graceful binary to measure")
	out := flag.String("out", "_output/bench", "folder for manifests and results.md")
	keep := flag.Bool("keep", false, "leave the fixture in the cluster afterwards")
	only := flag.String("only", "", "comma-separated benchmarks to run: audit, fleet, manifests, drain, pool, drainwatch, watch, rollout, realnode (default all)")
	exitAfter := flag.Duration("watch-pool-exit-after", 0, "how long after its deletion each pod of the drain --watch pools exits (0: "+harness.WatchPoolExitAfter.String()+"; 1s: the runs recorded before 2026-12-01 19:00 UTC)")
	flag.Parse()
	scale, err := harness.ScaleByName(*scaleName)
	if err != nil {
		return err
	}
	if *exitAfter > 0 {
		scale.WatchPool.ExitAfter = *exitAfter
	}
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return fmt.Errorf("run from the repository root (no go.mod in %s)", root)
	}
	bin, err := filepath.Abs(*binary)
	if err != nil {
		return err
	}
	if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("no plugin binary at %s: run `make build` first", bin)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts, err := localcluster.DefaultOptions(root, os.Stderr)
	if err != nil {
		return err
	}
	cluster, err := localcluster.Up(ctx, opts)
	if err != nil {
		return err
	}
	// The checkout and load as they are when the run starts.
	info := harness.Machine(root, time.Now().UTC(), scale.Name)
	rep, err := harness.Run(ctx, harness.BenchConfig{
		Scale: scale, Kubeconfig: cluster.Kubeconfig, Binary: bin, RepoRoot: root,
		OutDir: filepath.Join(root, *out), Keep: *keep, Log: os.Stderr, Only: splitList(*only),
	})
	if err != nil {
		return err
	}
	fmt.Println()
	if err := harness.PrintTable(os.Stdout, rep.Rows); err != nil {
		return err
	}
	md := filepath.Join(root, *out, "results.md")
	f, err := os.Create(md)
	if err != nil {
		return err
	}
	defer f.Close()
	harness.WriteResults(f, info, rep.Rows)
	fmt.Fprintf(os.Stderr, "\nMarkdown results: %s\n", md)
	return f.Close()
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
