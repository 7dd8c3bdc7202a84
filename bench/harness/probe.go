package harness

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/kubectl-graceful/kubectl-graceful/internal/hostproc"
)

const (
	probeAddedRow    = "watch --probe: delivery-to-line p99 added by a 200 requests/s probe (pkg/timeline BenchmarkDeliveryToLineUnderProbe, in-process)"
	probeAddedTarget = "<= 5 ms"
	probeStampRow    = "watch --probe: request stamp to server arrival p99, 200 requests/s (pkg/probe BenchmarkStampToArrival, loopback)"
	probeStampTarget = "<= 1 ms"
)

var (
	underProbeP99 = regexp.MustCompile(`BenchmarkDeliveryToLineUnderProbe\S*\s+\d+\s+.*?([0-9.]+) p99-ms`)
	baseP99       = regexp.MustCompile(`BenchmarkDeliveryToLine-?\d*\s+\d+\s+.*?([0-9.]+) p99-ms`)
	stampP99      = regexp.MustCompile(`BenchmarkStampToArrival\S*\s+\d+\s+.*?([0-9.]+) p99-ms`)
)

// timelineGoBench runs pkg/timeline's BenchmarkDeliveryToLine and
// BenchmarkDeliveryToLineUnderProbe in one `go test` (a test binary linked
// and run once for the watch row and the probe row) and returns its
// output, the same on every call.
func (h *harness) timelineGoBench(ctx context.Context) ([]byte, error) {
	if h.timelineBench == nil {
		cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", "^BenchmarkDeliveryToLine(UnderProbe)?$", "-benchtime", "2000x", "./pkg/timeline/")
		cmd.Dir = h.cfg.RepoRoot
		out, err := cmd.CombinedOutput()
		h.timelineBench = &goBenchOutput{out: out, err: err}
	}
	return h.timelineBench.out, h.timelineBench.err
}

// goBenchOutput is what one `go test -bench` printed, and its error.
type goBenchOutput struct {
	out []byte
	err error
}

// probeGoBench runs the probe's two in-process benchmarks: what a 200/s
// probe adds to the other tracks' delivery-to-line p99, and how far each
// request's stamp is from its arrival at a loopback server.
func (h *harness) probeGoBench(ctx context.Context) []Row {
	if h.cfg.Scale.Name == "tiny" {
		return []Row{notMeasured(probeAddedRow, probeAddedTarget, "skipped at tiny scale (compiles the tests)"),
			notMeasured(probeStampRow, probeStampTarget, "skipped at tiny scale (compiles the tests)")}
	}
	if _, err := os.Stat(filepath.Join(h.cfg.RepoRoot, "internal", "probe")); err != nil {
		return []Row{notMeasured(probeAddedRow, probeAddedTarget, "internal/probe not on this branch"),
			notMeasured(probeStampRow, probeStampTarget, "internal/probe not on this branch")}
	}
	run := func(bench, pkg string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", bench, "-benchtime", "2000x", pkg)
		cmd.Dir = h.cfg.RepoRoot
		return cmd.CombinedOutput()
	}
	var out []Row
	tl, err := h.timelineGoBench(ctx)
	under, base := underProbeP99.FindSubmatch(tl), baseP99.FindSubmatch(tl)
	if err != nil || under == nil || base == nil {
		out = append(out, notMeasured(probeAddedRow, probeAddedTarget, "go test -bench failed: "+hostproc.Tail(string(tl), 1)))
	} else {
		u, _ := strconv.ParseFloat(string(under[1]), 64)
		b, _ := strconv.ParseFloat(string(base[1]), 64)
		out = append(out, Row{What: probeAddedRow, Ours: fmt.Sprintf("%+.2f ms (%.2f vs %.2f)", u-b, u, b), Target: probeAddedTarget, Met: met(u-b <= 5)})
	}
	st, err := run("^BenchmarkStampToArrival$", "./internal/probe/")
	if m := stampP99.FindSubmatch(st); err != nil || m == nil {
		out = append(out, notMeasured(probeStampRow, probeStampTarget, "go test -bench failed: "+hostproc.Tail(string(st), 1)))
	} else {
		p99, _ := strconv.ParseFloat(string(m[1]), 64)
		out = append(out, Row{What: probeStampRow, Ours: fmt.Sprintf("%.2f ms", p99), Target: probeStampTarget, Met: met(p99 <= 1)})
	}
	return out
}
