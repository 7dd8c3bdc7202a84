package localcluster

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/hostproc"
)

// TestRunningNamesTheComponentThatIsMissing: a cluster is reused (and a
// setup wait explained) only when every component's process runs; a dead
// or a stopped one is named with its pid.
func TestRunningNamesTheComponentThatIsMissing(t *testing.T) {
	o := ClusterOptions{Name: "c", OutputDir: t.TempDir()}
	if err := os.MkdirAll(filepath.Join(o.clusterDir(), "pids"), 0o755); err != nil {
		t.Fatal(err)
	}
	setPID := func(c string, pid int) {
		if err := os.WriteFile(o.pidFile(c), []byte(strconv.Itoa(pid)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := o.Running(); !errors.Is(err, os.ErrNotExist) || err.Error()[:len("pid of etcd")] != "pid of etcd" {
		t.Errorf("no pid files: %v, want the missing pid file of etcd named", err)
	}
	for _, c := range Components {
		setPID(c, os.Getpid())
	}
	if err := o.Running(); err != nil {
		t.Errorf("every component running: %v", err)
	}

	exited := exec.Command("true")
	if err := exited.Run(); err != nil {
		t.Fatal(err)
	}
	setPID(KubeScheduler, exited.Process.Pid)
	want := "kube-scheduler (pid " + strconv.Itoa(exited.Process.Pid) + ") is not running"
	if err := o.Running(); err == nil || err.Error() != want {
		t.Errorf("scheduler dead: %v, want %q", err, want)
	}

	setPID(KubeScheduler, os.Getpid())
	stopped := exec.Command("sleep", "60")
	if err := stopped.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stopped.Process.Kill(); _ = stopped.Wait() })
	if err := stopped.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); hostproc.State(stopped.Process.Pid) != 'T'; {
		if time.Now().After(deadline) {
			t.Fatalf("sleep not stopped 10 s after SIGSTOP: state %q", hostproc.State(stopped.Process.Pid))
		}
		time.Sleep(10 * time.Millisecond)
	}
	setPID(KubeControllerManager, stopped.Process.Pid)
	want = "kube-controller-manager (pid " + strconv.Itoa(stopped.Process.Pid) + ") is stopped"
	if err := o.Running(); err == nil || err.Error() != want {
		t.Errorf("controller manager stopped: %v, want %q", err, want)
	}
}
