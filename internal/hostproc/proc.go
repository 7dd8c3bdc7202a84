package hostproc

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// State returns the state letter of /proc/<pid>/stat (R running,
// S sleeping, D in disk wait, T stopped, Z zombie, ...), or 0 when there
// is no such process.
func State(pid int) byte {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	return stateOf(stat)
}

// stateOf reads the state letter of a /proc/<pid>/stat line: the first
// field after the command name in parentheses, which may itself hold
// spaces and parentheses.
func stateOf(stat []byte) byte {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) {
		return 0
	}
	return stat[i+2]
}

// Alive reports whether pid runs or is stopped. A zombie (dead, not yet
// reaped by its parent) is not alive: it holds no port or lock, and its
// parent may never reap it.
func Alive(pid int) bool {
	s := State(pid)
	return s != 0 && s != 'Z' && s != 'X'
}

// Args returns pid's command line, the binary first; nil when the process
// is gone, a zombie or a kernel thread.
func Args(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return nil
	}
	return splitNUL(b)
}

// splitNUL splits a /proc list (cmdline, environ): each entry ends with a
// NUL, and an entry may be empty (an argument "").
func splitNUL(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	var out []string
	for _, f := range bytes.Split(bytes.TrimSuffix(b, []byte{0}), []byte{0}) {
		out = append(out, string(f))
	}
	return out
}

// Command is how a process is, or was, started: enough to start it again
// the same way.
type Command struct {
	// Args is the command line, the binary first.
	Args []string
	// Dir is the working folder and Env the environment; "" and nil
	// are the caller's.
	Dir string
	Env []string
}

// CommandOf reads how the running process pid was started, from
// /proc/<pid>/cmdline, cwd and environ (a zombie's Args are empty).
// Errors: the process is gone, or it is another user's.
func CommandOf(pid int) (Command, error) {
	proc := fmt.Sprintf("/proc/%d/", pid)
	environ, err := os.ReadFile(proc + "environ")
	if err != nil {
		return Command{}, err
	}
	dir, err := os.Readlink(proc + "cwd")
	if err != nil {
		return Command{}, err
	}
	return Command{Args: Args(pid), Dir: dir, Env: splitNUL(environ)}, nil
}

// Start starts c as a daemon: in a session of its own, so that it
// outlives the caller and a terminal's signals never reach it; its output
// appended to the file logPath (made with its folder when missing);
// inherit passed on to it as file descriptors 3 and up (a lock file it is
// to hold while it runs). The pid is written to pidPath, and returned even
// when that write fails. The process is reaped when it exits, so that it
// never lingers as a zombie of a caller that outlives it.
func (c Command) Start(logPath, pidPath string, inherit ...*os.File) (int, error) {
	if len(c.Args) == 0 {
		return 0, fmt.Errorf("start: no command line")
	}
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return 0, err
	}
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return 0, err
	}
	defer log.Close()
	cmd := exec.Command(c.Args[0], c.Args[1:]...)
	cmd.Dir, cmd.Env = c.Dir, c.Env
	cmd.Stdout, cmd.Stderr = log, log
	cmd.ExtraFiles = inherit
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("start %s: %w", filepath.Base(c.Args[0]), err)
	}
	go func() { _ = cmd.Wait() }()
	pid := cmd.Process.Pid
	return pid, os.WriteFile(pidPath, []byte(strconv.Itoa(pid)), 0o644)
}

// KillAndWait sends SIGKILL to each of pids (as a crash or an OOM kill
// ends a process; a stopped one dies too) and waits until none is Alive,
// for at most timeout in all. A pid ≤ 0 is skipped: kill(2) would read it
// as a process group. Error: a pid still alive after timeout (another
// user's, or stuck in the kernel).
func KillAndWait(timeout time.Duration, pids ...int) error {
	for _, p := range pids {
		if p > 0 {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	}
	deadline := time.Now().Add(timeout)
	for _, p := range pids {
		for p > 0 && Alive(p) {
			if time.Now().After(deadline) {
				return fmt.Errorf("pid %d still alive %s after SIGKILL", p, timeout)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return nil
}
