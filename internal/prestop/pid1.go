package prestop

import (
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// signalNames maps the signal numbers kill(1) takes to their names
// (Linux, x86 and arm): the ones preStop hooks send.
var signalNames = map[int]string{1: "HUP", 2: "INT", 3: "QUIT", 9: "KILL", 10: "USR1", 12: "USR2", 15: "TERM", 18: "CONT", 19: "STOP", 28: "WINCH"}

// SignalToPID1 returns the first statement of an exec preStop command
// that signals PID 1 (`kill 1`, `kill -QUIT 1`, `kill -s TERM 1`, `kill
// -15 1`) and the signal's name without "SIG" ("TERM" when none is
// given, as kill(1) does); "" when there is none. In a pod that shares
// its process namespace PID 1 is the pod's pause process, not the app.
func SignalToPID1(command []string) (stmt, signal string) {
	args, script, ok := unwrap(command)
	stmts := [][]string{args}
	if ok {
		stmts = statements(script)
	}
	for _, f := range stmts {
		if sig, ok := killsPID1(f); ok {
			return strings.Join(f, " "), sig
		}
	}
	return "", ""
}

// killsPID1 reads one statement as kill(1): its signal and whether 1 is
// among the pids it signals.
func killsPID1(f []string) (string, bool) {
	if len(f) < 2 || base(f[0]) != "kill" {
		return "", false
	}
	sig, pid1 := "TERM", false
	for i := 1; i < len(f); i++ {
		w := strings.Trim(f[i], `"'`)
		switch {
		case (w == "-s" || w == "-n") && i+1 < len(f):
			i++
			sig = signalName(f[i])
		case strings.HasPrefix(w, "-") && w != "--":
			sig = signalName(w[1:])
		case w == "1":
			pid1 = true
		}
	}
	return sig, pid1
}

// signalName normalises "SIGQUIT", "quit" or "3" to "QUIT".
func signalName(s string) string {
	s = strings.TrimPrefix(strings.ToUpper(strings.Trim(s, `"'`)), "SIG")
	if n, err := strconv.Atoi(s); err == nil {
		if name, ok := signalNames[n]; ok {
			return name
		}
	}
	return s
}

// EndsPause reports whether signal (as SignalToPID1 names it) ends the
// pod's pause process: Kubernetes' build/pause/linux/pause.c exits on
// SIGTERM and SIGINT and handles only SIGCHLD besides, and a PID
// namespace's init gets no signal it does not handle (pid_namespaces(7)).
func EndsPause(signal string) bool { return signal == "TERM" || signal == "INT" }

// PauseSignal is SignalToPID1 of c's exec preStop when the pod shares
// its process namespace (sharedPID), where PID 1 is the pod's pause
// process; "" when it does not, or the hook sends no such kill.
func PauseSignal(c corev1.Container, sharedPID bool) (stmt, signal string) {
	if !sharedPID || c.Lifecycle == nil || c.Lifecycle.PreStop == nil || c.Lifecycle.PreStop.Exec == nil {
		return "", ""
	}
	return SignalToPID1(c.Lifecycle.PreStop.Exec.Command)
}

// DurationInPod is Duration for a container of a pod whose containers
// share one process namespace when sharedPID is set: there PID 1 is the
// pod's pause process, so an exec hook's `kill -SIG 1` with a signal
// pause ignores (any but SIGTERM and SIGINT) stops nothing, and the hook
// lasts as its other commands do. Where that command cannot be taken out
// of the script the length is unknown.
func DurationInPod(c corev1.Container, sharedPID bool) (seconds int64, known bool, how string) {
	stmt, sig := PauseSignal(c, sharedPID)
	if stmt == "" || EndsPause(sig) {
		return Duration(c)
	}
	cmd := c.Lifecycle.PreStop.Exec.Command
	if args, _, _ := unwrap(cmd); strings.Join(args, " ") == stmt {
		return 0, true, HowExecScript // the hook is that kill alone: it returns at once
	}
	i := slices.IndexFunc(cmd, func(a string) bool { return strings.Contains(a, stmt) })
	if i < 0 {
		return 0, false, howExec
	}
	noop := slices.Clone(cmd)
	noop[i] = strings.Replace(noop[i], stmt, ":", 1)
	return execDuration(noop)
}
