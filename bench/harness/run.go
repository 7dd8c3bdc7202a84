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

	"github.com/kubectl-graceful/kubectl-graceful/internal/hostproc"
)

// Measurement is one measured child process.
type Measurement struct {
	// Wall is the time from start to exit.
	Wall time.Duration
	// MaxRSS is the child's peak resident set size in bytes (getrusage's
	// ru_maxrss, which Linux reports in kilobytes).
	MaxRSS int64
	// CPU is the child's user plus system time (0 when it was not started
	// through the launcher).
	CPU time.Duration
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
	// stderr, when not nil, receives all of the child's stderr too
	// (Measurement.Stderr keeps its end).
	stderr io.Writer
}

// measure runs c to completion and returns its wall time and peak RSS. An
// exit code outside c.ok is an error naming the program and its stderr.
func measure(ctx context.Context, c command) (Measurement, error) {
	argv, report := c.argv, ""
	if launcher != "" {
		f, err := os.CreateTemp("", "bench-maxrss-")
		if err != nil {
			return Measurement{}, err
		}
		f.Close()
		report = f.Name()
		defer os.Remove(report)
		argv = append([]string{launcher, "-o", report, "--"}, c.argv...)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), c.env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if c.stderr != nil {
		cmd.Stderr = io.MultiWriter(&stderr, c.stderr)
	}
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
	res := Measurement{Wall: time.Since(start), Stderr: hostproc.Tail(stderr.String(), 5)}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return res, fmt.Errorf("%s: %w", c.argv[0], err)
	}
	res.ExitCode = cmd.ProcessState.ExitCode()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		res.MaxRSS = ru.Maxrss * 1024
	}
	if report != "" {
		if err := readLauncherReport(report, &res); err != nil {
			return res, fmt.Errorf("%s: %w (stderr: %s)", c.argv[0], err, res.Stderr)
		}
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

// launcher, when not empty, is the bench/cmd/maxrss binary every measured
// program is started through (Run builds it): a child of the harness
// itself would count the harness's own memory in its peak RSS.
var launcher string

// readLauncherReport reads the wall time, peak RSS and CPU time
// bench/cmd/maxrss wrote to file into res.
func readLauncherReport(file string, res *Measurement) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var wall, rss, cpu int64
	if _, err := fmt.Sscan(string(data), &wall, &rss, &cpu); err != nil {
		return fmt.Errorf("maxrss report %q: %v", data, err)
	}
	res.Wall, res.MaxRSS, res.CPU = time.Duration(wall), rss, time.Duration(cpu)
	return nil
}

// mb formats bytes as megabytes (10^6, as `ps` and most tools print).
func mb(b int64) string { return fmt.Sprintf("%.0f MB", float64(b)/1e6) }

// secs formats a duration in seconds with two decimals.
func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }
