// Command maxrss runs a program and writes its wall time, peak resident
// set size and CPU time to a file: how the benchmark measures each
// program.
//
//	maxrss -o FILE -- PROG [ARGS...]
//
// FILE receives one line, "WALL_NANOSECONDS MAXRSS_BYTES CPU_NANOSECONDS"
// (CPU: user plus system time of PROG and its waited-for children); maxrss exits
// with PROG's exit code, its standard streams being PROG's.
//
// Why a process of its own: Linux counts in a child's ru_maxrss the
// resident set of the process image it was forked from (at exec, the
// kernel keeps the larger of the old image's peak and the new one's), so
// a child started by the benchmark harness, which holds a fixture of
// 20,000 pods in memory, reported at least the harness's own peak (113 MB
// for a 30 MB floor). Started from this small process, a child reports
// at least this one's few megabytes, the same for every program measured.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	out := flag.String("o", "", "file for \"WALL_NANOSECONDS MAXRSS_BYTES CPU_NANOSECONDS\"")
	flag.Parse()
	if *out == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: maxrss -o FILE -- PROG [ARGS...]")
		os.Exit(1)
	}
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// The program dies with this process (the harness kills it on timeout).
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		fmt.Fprintln(os.Stderr, "maxrss:", err)
		os.Exit(1)
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss * 1024 // Linux reports kilobytes
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if err := os.WriteFile(*out, []byte(fmt.Sprintf("%d %d %d\n", wall.Nanoseconds(), rss, cpu.Nanoseconds())), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "maxrss:", err)
		os.Exit(1)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
