package hostproc

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The state follows the last ')': a command name may hold both spaces
// and parentheses.
func TestStateOf(t *testing.T) {
	for line, want := range map[string]byte{
		"42 (sleep) S 1 42 42 0 -1":          'S',
		"42 (a (b) c) ) T 1 42 42 0 -1":      'T',
		"42 (kube-apiserver) Z 1 42 42 0 -1": 'Z',
		"42 (cut":                            0,
		"42 (cut)":                           0,
	} {
		if got := stateOf([]byte(line)); got != want {
			t.Errorf("stateOf(%q) = %q, want %q", line, got, want)
		}
	}
}

// A final empty argument stays; nothing read is no command line.
func TestSplitNUL(t *testing.T) {
	for in, want := range map[string][]string{
		"sleep\x0060\x00":  {"sleep", "60"},
		"sh\x00-c\x00\x00": {"sh", "-c", ""},
		"":                 nil,
	} {
		if got := splitNUL([]byte(in)); !reflect.DeepEqual(got, want) {
			t.Errorf("splitNUL(%q) = %q, want %q", in, got, want)
		}
	}
}

// A started daemon is alive with its pid file and command line, runs in a
// session of its own, writes to its log, and is gone after KillAndWait;
// CommandOf gives back how it was started.
func TestStartKillAndWait(t *testing.T) {
	dir := t.TempDir()
	c := Command{Args: []string{"sh", "-c", "echo started; exec sleep 60"}, Dir: dir, Env: []string{"HOSTPROC_TEST=1"}}
	logPath, pidPath := filepath.Join(dir, "logs", "sleep.log"), filepath.Join(dir, "sleep.pid")
	pid, err := c.Start(logPath, pidPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if b, _ := os.ReadFile(pidPath); string(b) != strconv.Itoa(pid) {
		t.Errorf("pid file %q, want %d", b, pid)
	}
	// After the state: the parent, the process group, the session.
	stat, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])); len(f) < 4 || f[3] != strconv.Itoa(pid) {
		t.Errorf("stat %q: want a session of its own (%d)", stat, pid)
	}
	for deadline := time.Now().Add(10 * time.Second); !strings.HasPrefix(strings.Join(Args(pid), " "), "sleep"); {
		if time.Now().After(deadline) {
			t.Fatalf("command line %q, want sleep's", Args(pid))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !Alive(pid) {
		t.Fatalf("pid %d not alive (state %q)", pid, State(pid))
	}
	got, err := CommandOf(pid)
	if err != nil {
		t.Fatal(err)
	}
	// sh adds PWD to the environment it hands on.
	if !reflect.DeepEqual(got.Args, []string{"sleep", "60"}) || got.Dir != dir || !slices.Contains(got.Env, c.Env[0]) {
		t.Errorf("CommandOf = %+v, want sleep 60 in %s with %s", got, dir, c.Env[0])
	}
	if err := KillAndWait(10*time.Second, pid); err != nil {
		t.Fatal(err)
	}
	if Alive(pid) {
		t.Errorf("pid %d alive after KillAndWait", pid)
	}
	if b, _ := os.ReadFile(logPath); string(b) != "started\n" {
		t.Errorf("log %q, want the daemon's output", b)
	}
}

// A zombie, dead but not reaped, is not alive, nor is a stopped process
// dead.
func TestZombieIsDead(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); State(pid) != 'T'; {
		if time.Now().After(deadline) {
			t.Fatalf("sleep not stopped 10 s after SIGSTOP: state %q", State(pid))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !Alive(pid) {
		t.Errorf("a stopped process is not alive")
	}
	// Not reaped until the cleanup: a zombie meanwhile.
	if err := KillAndWait(10*time.Second, pid); err != nil {
		t.Fatal(err)
	}
	if s := State(pid); s != 'Z' {
		t.Errorf("state %q after the kill, want a zombie", s)
	}
}

func TestTail(t *testing.T) {
	if got := Tail("a\nb\nc\n", 2); got != "b\nc" {
		t.Errorf("Tail = %q", got)
	}
	if got := Tail("a", 5); got != "a" {
		t.Errorf("Tail = %q", got)
	}
}

func TestFreePortsAreDistinct(t *testing.T) {
	ports, err := FreePorts(3)
	if err != nil {
		t.Fatal(err)
	}
	if len(ports) != 3 || ports[0] == ports[1] || ports[1] == ports[2] || ports[0] == ports[2] {
		t.Errorf("ports %v, want 3 distinct", ports)
	}
}
