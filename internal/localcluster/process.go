package localcluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubectl-graceful/kubectl-graceful/internal/hostproc"
)

// Component names of kwokctl's binary runtime: each runs as one process
// whose pid kwokctl writes to <cluster folder>/pids/<name>.pid and whose
// output goes to <cluster folder>/logs/<name>.log.
const (
	Etcd                  = "etcd"
	KubeAPIServer         = "kube-apiserver"
	KubeControllerManager = "kube-controller-manager"
	KubeScheduler         = "kube-scheduler"
	KwokController        = "kwok-controller"
)

// Components lists the processes of a cluster, etcd first: the order a
// restart of the whole control plane brings them back in.
var Components = []string{Etcd, KubeAPIServer, KubeControllerManager, KubeScheduler, KwokController}

// clusterDir is kwokctl's folder of the cluster (pids, logs, pki, etcd data).
func (o ClusterOptions) clusterDir() string {
	return filepath.Join(o.workDir(), "clusters", o.Name)
}

func (o ClusterOptions) pidFile(component string) string {
	return filepath.Join(o.clusterDir(), "pids", component+".pid")
}

// ComponentPID returns the pid kwokctl (or RestartComponent) recorded for
// component, and whether that process is alive (running or stopped, not a
// zombie).
func (o ClusterOptions) ComponentPID(component string) (pid int, alive bool, err error) {
	b, err := os.ReadFile(o.pidFile(component))
	if err != nil {
		return 0, false, fmt.Errorf("pid of %s: %w", component, err)
	}
	pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, false, fmt.Errorf("pid file of %s: %w", component, err)
	}
	return pid, hostproc.Alive(pid), nil
}

// Running returns nil when every component's process runs, and otherwise
// an error naming the first that is dead or stopped (SIGSTOP, as the fault
// tests leave one when killed mid-pause): such a cluster may answer /readyz
// while nothing schedules its pods (no kube-scheduler), nothing creates
// them (no kube-controller-manager) or no node turns Ready (no
// kwok-controller), so a wait on any of these can never succeed.
func (o ClusterOptions) Running() error {
	for _, c := range Components {
		pid, err := o.alivePID(c)
		switch {
		case err != nil:
			return err
		case hostproc.State(pid) == 'T':
			return fmt.Errorf("%s (pid %d) is stopped", c, pid)
		}
	}
	return nil
}

// SignalComponent sends sig to component's process: SIGSTOP freezes it
// with its connections open (an API server that accepts and never answers),
// SIGCONT resumes it.
func (o ClusterOptions) SignalComponent(component string, sig syscall.Signal) error {
	pid, err := o.alivePID(component)
	if err != nil {
		return err
	}
	return syscall.Kill(pid, sig)
}

// alivePID is ComponentPID with a process that is not alive an error.
func (o ClusterOptions) alivePID(component string) (int, error) {
	pid, alive, err := o.ComponentPID(component)
	if err == nil && !alive {
		err = fmt.Errorf("%s (pid %d) is not running", component, pid)
	}
	return pid, err
}

// KillComponent kills component's process with SIGKILL, as a crash or an
// OOM kill would, and waits until it is gone (at most 30 s).
func (o ClusterOptions) KillComponent(component string) error {
	pid, alive, err := o.ComponentPID(component)
	if err != nil || !alive {
		return err
	}
	if err := hostproc.KillAndWait(30*time.Second, pid); err != nil {
		return fmt.Errorf("kill %s: %w", component, err)
	}
	return nil
}

// StartComponent starts component again with the command line, working
// folder and environment of its last process (read from /proc while it
// ran: call RememberComponent first) and records the new pid where kwokctl
// keeps it, so that `kwokctl delete cluster` (Down) still stops it. Its
// output is appended to the component's log. The process gets a session
// of its own and outlives the caller.
func (o ClusterOptions) StartComponent(p *ComponentProcess) (int, error) {
	return p.Start(filepath.Join(o.clusterDir(), "logs", p.Name+".log"), o.pidFile(p.Name))
}

// ComponentProcess is how a component was started: enough to start it
// again the same way.
type ComponentProcess struct {
	Name string
	hostproc.Command
}

// RememberComponent reads how component's running process was started
// (/proc/<pid>/cmdline, cwd and environ).
func (o ClusterOptions) RememberComponent(component string) (*ComponentProcess, error) {
	pid, err := o.alivePID(component)
	if err != nil {
		return nil, err
	}
	c, err := hostproc.CommandOf(pid)
	if err != nil {
		return nil, fmt.Errorf("%s (pid %d): %w", component, pid, err)
	}
	return &ComponentProcess{Name: component, Command: c}, nil
}

// WaitReady polls the cluster's /readyz until it answers ok or ctx ends.
func (o ClusterOptions) WaitReady(ctx context.Context) error {
	var err error
	_ = wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		err = ready(ctx, o.KubeconfigPath())
		return err == nil, nil
	})
	if err != nil {
		return fmt.Errorf("cluster %s does not answer /readyz: %w", o.Name, err)
	}
	return nil
}

// Lock takes an exclusive advisory lock named name in the cluster's output
// folder, waiting while another process or test holds it; the returned
// function releases it. Tests that break the control plane hold it so that
// no other test uses the cluster meanwhile.
func (o ClusterOptions) Lock(name string) (func(), error) {
	return hostproc.Lock(filepath.Join(o.OutputDir, name+".lock"), syscall.LOCK_EX)
}
