package realnode

import (
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/hostproc"
)

// The parts of a real node a test may signal or restart.
const (
	PartKubelet    = "kubelet"
	PartContainerd = "containerd"
	PartKubeProxy  = "kube-proxy"
)

// Signal sends sig to one part of a running real node (PartKubelet,
// PartContainerd or PartKubeProxy): the process Up started and the state
// file names, never another. Tests stop a kubelet with SIGSTOP and resume
// it with SIGCONT. Errors: no real node runs, or the part is not running.
func Signal(nodeName, part string, sig syscall.Signal) error {
	_, pid, err := partPid(nodeName, part)
	if err != nil {
		return err
	}
	if err := syscall.Kill(pid, sig); err != nil {
		return fmt.Errorf("signal %s of %s (pid %d): %w", part, nodeName, pid, err)
	}
	return nil
}

// Restart kills one part of a running real node (SIGKILL, as a crash or an
// OOM kill ends it; a stopped process is resumed first), keeps it down for
// down, and starts it again with the same command line, recording the new
// pid in the state file so that `make cluster-down` stops it. The new
// process does not hold the node's lock: the node's other parts do.
func Restart(nodeName, part string, down time.Duration) error {
	n, pid, err := partPid(nodeName, part)
	if err != nil {
		return err
	}
	args := hostproc.Args(pid)
	if len(args) == 0 {
		return fmt.Errorf("%s of %s (pid %d): no command line to start it again with", part, nodeName, pid)
	}
	_ = syscall.Kill(pid, syscall.SIGCONT)
	_ = hostproc.KillAndWait(10*time.Second, pid)
	time.Sleep(down)
	lock, err := os.Open(defaultLayout().lockPath())
	if err != nil {
		return err
	}
	defer lock.Close()
	newPid, err := hostproc.Command{Args: args}.Start(n.l.log(part), n.l.pidPath(part), lock)
	if err != nil {
		return err
	}
	s, err := readState(defaultLayout())
	if err != nil || s == nil {
		return fmt.Errorf("%s of %s started again (pid %d), but the state file cannot be read: %v", part, nodeName, newPid, err)
	}
	s.Pids[n.pidKey(part)] = newPid
	return writeState(defaultLayout(), s)
}

// partPid returns the node and the pid of its part, checking that the pid
// still runs that part.
// PartLog is the log file of one part of a running real node (PartKubelet,
// PartContainerd or PartKubeProxy). Errors: no real node runs, or the
// part is not running.
func PartLog(nodeName, part string) (string, error) {
	n, _, err := partPid(nodeName, part)
	return n.l.log(part), err
}

func partPid(nodeName, part string) (node, int, error) {
	s, n, err := runningNode(nodeName)
	if err != nil {
		return n, 0, err
	}
	if pid := s.part(n, part); pid > 0 {
		return n, pid, nil
	}
	return n, 0, fmt.Errorf("%s of %s is not running", part, nodeName)
}
