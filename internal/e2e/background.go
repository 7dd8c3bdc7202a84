package e2e

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Running is a kubectl command started in the background, for commands
// that follow what the test does next (`watch`).
type Running struct {
	cmd    *exec.Cmd
	cancel context.CancelFunc
	mu     sync.Mutex
	stdout bytes.Buffer
	stderr bytes.Buffer
	done   chan struct{}
	res    Result
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// StartKubectl starts the real kubectl as Kubectl does, killed after
// timeout at the latest and when the test ends.
func (e *Env) StartKubectl(t testing.TB, timeout time.Duration, args ...string) *Running {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	r := &Running{cancel: cancel, done: make(chan struct{})}
	r.cmd = kubectlCommand(ctx, t, []string{"KUBECONFIG=" + e.Kubeconfig}, args)
	r.cmd.Stdout, r.cmd.Stderr = lockedWriter{&r.mu, &r.stdout}, lockedWriter{&r.mu, &r.stderr}
	if err := r.cmd.Start(); err != nil {
		cancel()
		t.Fatalf("kubectl %s: %v", strings.Join(args, " "), err)
	}
	go func() {
		_ = r.cmd.Wait()
		r.mu.Lock()
		// ExitCode is -1 for a process killed by a signal.
		r.res = Result{Stdout: r.stdout.String(), Stderr: r.stderr.String(), ExitCode: r.cmd.ProcessState.ExitCode()}
		r.mu.Unlock()
		close(r.done)
	}()
	t.Cleanup(func() { cancel(); <-r.done })
	return r
}

// Stdout returns what the command printed so far.
func (r *Running) Stdout() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stdout.String()
}

// WaitOutput waits up to timeout for the command to print sub on stdout,
// failing the test (with the output) otherwise.
func (r *Running) WaitOutput(t testing.TB, timeout time.Duration, sub string) {
	t.Helper()
	r.wait(t, timeout, sub, r.Stdout)
}

// WaitStderr is WaitOutput for stderr, where the commands print their live
// lines when stdout carries a chart (-o mermaid).
func (r *Running) WaitStderr(t testing.TB, timeout time.Duration, sub string) {
	t.Helper()
	r.wait(t, timeout, sub, func() string {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.stderr.String()
	})
}

func (r *Running) wait(t testing.TB, timeout time.Duration, sub string, out func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if strings.Contains(out(), sub) {
			return
		}
		select {
		case <-r.done:
			res := r.Wait()
			t.Fatalf("the command ended (exit %d) before printing %q:\n%s\n%s", res.ExitCode, sub, res.Stdout, res.Stderr)
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Fatalf("timed out after %s waiting for %q in:\n%s", timeout, sub, out())
}

// Interrupt sends SIGINT, as Ctrl-C does (kubectl execs the plugin, so the
// signal reaches the plugin itself).
func (r *Running) Interrupt() { _ = r.cmd.Process.Signal(syscall.SIGINT) }

// Wait waits for the command to end and returns its result.
func (r *Running) Wait() Result {
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.res
}
