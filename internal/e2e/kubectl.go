package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Result is what a command printed and how it exited.
type Result struct {
	Stdout   string
	Stderr   string
	ExitCode int
}

// Binary returns the path of the plugin binary: $GRACEFUL_BINARY when set
// (`make test` builds bin/kubectl-graceful first and sets it), otherwise a
// build of ./cmd/kubectl-graceful made once per test process.
func Binary(t testing.TB) string {
	t.Helper()
	p, err := binary()
	if err != nil {
		t.Fatalf("plugin binary: %v", err)
	}
	return p
}

// binary finds or builds the plugin binary, once per test process.
var binary = sync.OnceValues(func() (string, error) {
	if p := os.Getenv("GRACEFUL_BINARY"); p != "" {
		return filepath.Abs(p)
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "graceful-bin-")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "kubectl-graceful")
	cmd := exec.Command("go", "build", "-o", path, "./cmd/kubectl-graceful")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", errors.New("go build: " + err.Error() + "\n" + string(out))
	}
	return path, nil
})

// Kubectl runs the real kubectl with KUBECONFIG set to the local cluster and
// the plugin binary first on PATH, so `kubectl graceful ...` runs the code
// under test. It gives up after two minutes.
func (e *Env) Kubectl(t testing.TB, args ...string) Result {
	t.Helper()
	return RunKubectl(t, []string{"KUBECONFIG=" + e.Kubeconfig}, args...)
}

// RunKubectl runs the real kubectl with the plugin on PATH and extra
// environment variables (for example KUBECONFIG pointing at nothing, for
// tests that must work without a cluster).
func RunKubectl(t testing.TB, env []string, args ...string) Result {
	t.Helper()
	return RunKubectlFor(t, 2*time.Minute, env, args...)
}

// RunKubectlFor is RunKubectl giving up after timeout instead, for commands
// that may legitimately wait longer.
func RunKubectlFor(t testing.TB, timeout time.Duration, env []string, args ...string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := kubectlCommand(ctx, t, env, args)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// A command that ran has a ProcessState, even when it failed.
	if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
		t.Fatalf("kubectl %s: %v", strings.Join(args, " "), err)
	}
	return Result{Stdout: stdout.String(), Stderr: stderr.String(), ExitCode: cmd.ProcessState.ExitCode()}
}

// kubectlCommand is the real kubectl running args with the plugin binary
// first on PATH and env added to the test's environment.
func kubectlCommand(ctx context.Context, t testing.TB, env, args []string) *exec.Cmd {
	t.Helper()
	cmd := exec.CommandContext(ctx, "kubectl", args...)
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(Binary(t))+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.Env = append(cmd.Env, env...)
	return cmd
}
