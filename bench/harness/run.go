package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Measurement is one measured child process.
type Measurement struct {
	// Wall is the time from start to exit.
	Wall time.Duration
	// MaxRSS is the child's peak resident set size in bytes (getrusage's
	// ru_maxrss, which Linux reports in kilobytes).
	MaxRSS int64
	// ExitCode is the child's exit status.
	ExitCode int
	// Stderr is the end of what the child wrote to stderr, for error messages.
	Stderr string
}

// command is a program to measure: its argv, extra environment and the exit
// codes that mean it worked (audits exit 2 when they find something).
type command struct {
	argv []string
	env  []string
	ok   []int
	// stdout receives the child's output; nil means /dev/null, as in the
	// floor's `>/dev/null`.
	stdout io.Writer
}

// measure runs c to completion and returns its wall time and peak RSS. An
// exit code outside c.ok is an error naming the program and its stderr.
func measure(ctx context.Context, c command) (Measurement, error) {
	cmd := exec.CommandContext(ctx, c.argv[0], c.argv[1:]...)
	cmd.Env = append(os.Environ(), c.env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if c.stdout != nil {
		cmd.Stdout = c.stdout
	} else {
		null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			return Measurement{}, err
		}
		defer null.Close()
		cmd.Stdout = null
	}
	start := time.Now()
	err := cmd.Run()
	res := Measurement{Wall: time.Since(start), Stderr: tail(stderr.String(), 5)}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return res, fmt.Errorf("%s: %w", c.argv[0], err)
	}
	res.ExitCode = cmd.ProcessState.ExitCode()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		res.MaxRSS = ru.Maxrss * 1024
	}
	ok := c.ok
	if ok == nil {
		ok = []int{0}
	}
	if !slices.Contains(ok, res.ExitCode) {
		return res, fmt.Errorf("%s exited %d: %s", strings.Join(c.argv, " "), res.ExitCode, res.Stderr)
	}
	return res, nil
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// mb formats bytes as megabytes (10^6, as `ps` and most tools print).
func mb(b int64) string { return fmt.Sprintf("%.0f MB", float64(b)/1e6) }

// secs formats a duration in seconds with two decimals.
func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }
