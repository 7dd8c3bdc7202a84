package localcluster

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
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
	return pid, processAlive(pid), nil
}

// Running returns nil when every component's process runs, and otherwise
// an error naming the first that is dead or stopped (SIGSTOP, as the fault
// tests leave one when killed mid-pause): such a cluster may answer /readyz
// while nothing schedules its pods (no kube-scheduler), nothing creates
// them (no kube-controller-manager) or no node turns Ready (no
// kwok-controller), so a wait on any of these can never succeed.
func (o ClusterOptions) Running() error {
	for _, c := range Components {
		pid, alive, err := o.ComponentPID(c)
		switch {
		case err != nil:
			return err
		case !alive:
			return fmt.Errorf("%s (pid %d) is not running", c, pid)
		case processState(pid) == 'T':
			return fmt.Errorf("%s (pid %d) is stopped", c, pid)
		}
	}
	return nil
}

// processAlive reports whether pid runs or is stopped; a zombie (dead, not
// yet reaped by its parent) is not alive.
func processAlive(pid int) bool {
	s := processState(pid)
	return s != 0 && s != 'Z' && s != 'X'
}

// processState returns the state letter of /proc/<pid>/stat (R, S, D, T,
// Z, ...), or 0 when there is no such process.
func processState(pid int) byte {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The state is the first field after the command name in parentheses,
	// which may itself hold spaces and parentheses.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) {
		return 0
	}
	return stat[i+2]
}

// SignalComponent sends sig to component's process: SIGSTOP freezes it
// with its connections open (an API server that accepts and never answers),
// SIGCONT resumes it.
func (o ClusterOptions) SignalComponent(component string, sig syscall.Signal) error {
	pid, alive, err := o.ComponentPID(component)
	if err != nil {
		return err
	}
	if !alive {
		return fmt.Errorf("%s (pid %d) is not running", component, pid)
	}
	return syscall.Kill(pid, sig)
}

// KillComponent kills component's process with SIGKILL, as a crash or an
// OOM kill would, and waits until it is gone (at most 30 s).
func (o ClusterOptions) KillComponent(component string) error {
	pid, alive, err := o.ComponentPID(component)
	if err != nil || !alive {
		return err
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill %s (pid %d): %w", component, pid, err)
	}
	for deadline := time.Now().Add(30 * time.Second); processAlive(pid); {
		if time.Now().After(deadline) {
			return fmt.Errorf("%s (pid %d) still alive 30 s after SIGKILL", component, pid)
		}
		time.Sleep(50 * time.Millisecond)
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
	log, err := os.OpenFile(filepath.Join(o.clusterDir(), "logs", p.Name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return 0, err
	}
	defer log.Close()
	cmd := exec.Command(p.Args[0], p.Args[1:]...)
	cmd.Dir, cmd.Env = p.Dir, p.Env
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("start %s: %w", p.Name, err)
	}
	pid := cmd.Process.Pid
	// Reap it when it dies, so that it never lingers as a zombie that
	// looks alive to a pid check.
	go func() { _ = cmd.Wait() }()
	if err := os.WriteFile(o.pidFile(p.Name), []byte(strconv.Itoa(pid)), 0o644); err != nil {
		return pid, err
	}
	return pid, nil
}

// ComponentProcess is how a component was started: enough to start it
// again the same way.
type ComponentProcess struct {
	Name string
	// Args is the command line, the binary first.
	Args []string
	Dir  string
	Env  []string
}

// RememberComponent reads how component's running process was started
// (/proc/<pid>/cmdline, cwd and environ).
func (o ClusterOptions) RememberComponent(component string) (*ComponentProcess, error) {
	pid, alive, err := o.ComponentPID(component)
	if err != nil {
		return nil, err
	}
	if !alive {
		return nil, fmt.Errorf("%s (pid %d) is not running", component, pid)
	}
	proc := fmt.Sprintf("/proc/%d/", pid)
	cmdline, err := os.ReadFile(proc + "cmdline")
	if err != nil {
		return nil, err
	}
	environ, err := os.ReadFile(proc + "environ")
	if err != nil {
		return nil, err
	}
	dir, err := os.Readlink(proc + "cwd")
	if err != nil {
		return nil, err
	}
	return &ComponentProcess{Name: component, Args: splitNUL(cmdline), Dir: dir, Env: splitNUL(environ)}, nil
}

func splitNUL(b []byte) []string {
	var out []string
	for _, f := range bytes.Split(bytes.TrimRight(b, "\x00"), []byte{0}) {
		out = append(out, string(f))
	}
	return out
}

// WaitReady polls the cluster's /readyz until it answers ok or ctx ends.
func (o ClusterOptions) WaitReady(ctx context.Context) error {
	for {
		err := ready(ctx, o.KubeconfigPath())
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster %s not ready: %w", o.Name, err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Lock takes an exclusive advisory lock named name in the cluster's output
// folder, waiting while another process or test holds it; the returned
// function releases it. Tests that break the control plane hold it so that
// no other test uses the cluster meanwhile.
func (o ClusterOptions) Lock(name string) (func(), error) {
	return lockFile(filepath.Join(o.OutputDir, name+".lock"))
}
