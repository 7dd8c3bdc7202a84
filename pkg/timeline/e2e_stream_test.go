package timeline_test

import (
	"bufio"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// live is a plugin run whose output the test reads while it runs.
type live struct {
	t     *testing.T
	cmd   *exec.Cmd
	mu    sync.Mutex
	lines []string
	errb  strings.Builder
	grew  chan struct{}
	done  chan struct{}
}

// startLive starts `kubectl graceful ARGS` and collects stdout line by line.
func startLive(t *testing.T, kubeconfig string, args ...string) *live {
	t.Helper()
	l := &live{t: t, cmd: pluginCmd(t, kubeconfig, args...), grew: make(chan struct{}, 1), done: make(chan struct{})}
	out, err := l.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	l.cmd.Stderr = &syncWriter{mu: &l.mu, w: &l.errb}
	if err := l.cmd.Start(); err != nil {
		t.Fatalf("starting kubectl graceful: %v", err)
	}
	go func() {
		defer close(l.done)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			l.mu.Lock()
			l.lines = append(l.lines, sc.Text())
			l.mu.Unlock()
			select {
			case l.grew <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() {
		if l.cmd.ProcessState == nil {
			_ = l.cmd.Process.Kill()
			_ = l.cmd.Wait()
		}
	})
	return l
}

type syncWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// waitFor waits until a stdout line contains sub.
func (l *live) waitFor(sub string, timeout time.Duration) {
	l.t.Helper()
	deadline := time.After(timeout)
	for {
		l.mu.Lock()
		for _, line := range l.lines {
			if strings.Contains(line, sub) {
				l.mu.Unlock()
				return
			}
		}
		out := strings.Join(l.lines, "\n")
		l.mu.Unlock()
		select {
		case <-l.grew:
		case <-l.done:
			l.t.Fatalf("the plugin ended before printing %q:\n%s", sub, out)
		case <-deadline:
			l.t.Fatalf("no line with %q within %s:\n%s", sub, timeout, out)
		}
	}
}

// wait waits for the plugin to end and parses its output.
func (l *live) wait() run {
	l.t.Helper()
	<-l.done
	err := l.cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		l.t.Fatalf("kubectl graceful: %v", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return parseRun(l.t, strings.Join(l.lines, "\n")+"\n", l.errb.String(), code)
}
