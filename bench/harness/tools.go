package harness

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/kubectl-graceful/kubectl-graceful/internal/hostproc"
)

// KubeScoreVersion is the kube-score release the manifest audit is compared with.
const KubeScoreVersion = "v1.20.0"

// toolsDir is the per-user cache for peer tools:
// ${XDG_CACHE_HOME:-~/.cache}/kubectl-graceful/tools.
func toolsDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache folder: %w", err)
	}
	return filepath.Join(base, "kubectl-graceful", "tools"), nil
}

// ensureKubeScore returns the path of kube-score KubeScoreVersion, building
// it from the Go module proxy into the tools cache on first use (about 20 s)
// and reusing it after.
func ensureKubeScore(ctx context.Context, log io.Writer) (string, error) {
	dir, err := toolsDir()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "kube-score-"+KubeScoreVersion)
	path := filepath.Join(bin, "kube-score")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	fmt.Fprintf(log, "building kube-score %s into %s...\n", KubeScoreVersion, bin)
	cmd := exec.CommandContext(ctx, "go", "install", "github.com/zegl/kube-score/cmd/kube-score@"+KubeScoreVersion)
	// Outside any module, so this repository's go.mod is not involved.
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOBIN="+bin, "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install kube-score: %w\n%s", err, hostproc.Tail(string(out), 10))
	}
	return path, nil
}
