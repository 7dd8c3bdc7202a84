// Package prestop reads how long a container's preStop hook keeps it alive
// before kubelet sends SIGTERM. The audit, watch and drain commands all need
// this number; it lives here so that they agree on it.
//
// Kubernetes facts encoded here (kubelet, pkg/kubelet/lifecycle and
// kuberuntime_container.go killContainer): the preStop hook runs inside the
// pod's grace period, not before it; a native `sleep` action
// (lifecycle.preStop.sleep.seconds, beta and on by default from 1.30, GA in
// 1.34) sleeps exactly that many seconds; an exec hook's duration is whatever
// the command takes, and an httpGet hook's is whatever the server takes.
package prestop

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// How names the kind of preStop hook a Duration was read from.
const (
	// HowNone: the container has no preStop hook.
	HowNone = "none"
	// HowNativeSleep: lifecycle.preStop.sleep.seconds.
	HowNativeSleep = "sleep"
	// HowExecSleep: an exec hook whose command is only a sleep
	// (`sleep 10`, `/bin/sleep 10s`, `busybox sleep 10`, `sh -c "sleep 10"`).
	HowExecSleep = "exec-sleep"
	// HowExecScript: an exec shell script that sleeps among other steps
	// (`sh -c "nginx -s quit && sleep 5"`); the duration is the sum of its
	// sleeps, a lower bound of the real time.
	HowExecScript = "exec-script"
	// howExec: an exec hook whose duration cannot be read from the spec.
	howExec = "exec"
	// howHTTPGet: an httpGet hook, duration unknown.
	howHTTPGet = "httpGet"
	// HowTCPSocket: the deprecated tcpSocket handler, which kubelet does not run.
	HowTCPSocket = "tcpSocket"
)

// Duration returns the seconds container c's preStop hook keeps it running
// before SIGTERM, whether that number is known from the spec, and how it was
// read (one of the How constants). A container without a preStop hook
// returns (0, true, HowNone). Exec hooks are parsed for `sleep N`,
// `sleep Ns` (also m and h suffixes and fractions, rounded up to whole
// seconds), `/bin/sleep`, `busybox sleep` and `sh|bash|ash -c "... sleep N
// ..."` scripts; anything else, and every httpGet hook, returns known=false.
func Duration(c corev1.Container) (seconds int64, known bool, how string) {
	if c.Lifecycle == nil || c.Lifecycle.PreStop == nil {
		return 0, true, HowNone
	}
	h := c.Lifecycle.PreStop
	switch {
	case h.Sleep != nil:
		return h.Sleep.Seconds, true, HowNativeSleep
	case h.Exec != nil:
		return execDuration(h.Exec.Command)
	case h.HTTPGet != nil:
		return 0, false, howHTTPGet
	case h.TCPSocket != nil:
		return 0, true, HowTCPSocket
	}
	return 0, true, HowNone
}

// IsShellOrSleep reports whether an exec command starts with a binary that
// must exist in the image for the hook to work: a shell, sleep or busybox.
// Used to warn about images that ship no shell (distroless, scratch).
func IsShellOrSleep(command []string) bool {
	if len(command) == 0 {
		return false
	}
	b := base(command[0])
	return b == "sleep" || b == "busybox" || shells[b]
}

// shells are the shells whose `-c SCRIPT` is read as a script.
var shells = map[string]bool{"sh": true, "bash": true, "ash": true, "dash": true, "zsh": true}

// unwrap drops a leading busybox from an exec command and returns the
// rest, with the script of a shell's `-c SCRIPT` (ok false when none).
func unwrap(command []string) (args []string, script string, ok bool) {
	args = command
	if len(args) > 0 && base(args[0]) == "busybox" {
		args = args[1:]
	}
	if len(args) > 0 && shells[base(args[0])] {
		script, ok = shellScript(args[1:])
	}
	return args, script, ok
}

func execDuration(cmd []string) (int64, bool, string) {
	args, script, isScript := unwrap(cmd)
	switch {
	case len(args) == 0:
		return 0, false, howExec
	case base(args[0]) == "sleep":
		if s, ok := sleepArgs(args[1:]); ok {
			return s, true, HowExecSleep
		}
		return 0, false, howExec
	case isScript:
		return scriptDuration(script)
	}
	if stopsServer(args) {
		return 0, true, HowExecStopsFirst
	}
	return 0, false, howExec
}

// shellScript returns the script of `sh -c SCRIPT` (also `-ec`, `-xc`).
func shellScript(args []string) (string, bool) {
	for i, a := range args {
		if strings.HasPrefix(a, "-") && strings.HasSuffix(a, "c") && i+1 < len(args) {
			return strings.Join(args[i+1:i+2], " "), true
		}
	}
	return "", false
}

// scriptDuration sums the `sleep` commands of a shell script split on
// `&&`, `||`, `;`, `|` and newlines. A script made only of sleeps is an
// exec-sleep; in a script with other commands the sleeps are a lower bound
// of the hook's time (a preStop that sleeps N seconds keeps the container
// alive at least N seconds), reported as an exec-script. A script that
// stops the server before it sleeps is an exec-stops-first: only the
// sleeps before that command count.
func scriptDuration(script string) (int64, bool, string) {
	stmts := statements(script)
	if cmd, before := stopCommand(stmts); cmd != "" {
		return before, true, HowExecStopsFirst
	}
	if loop.MatchString(script) {
		// `while [ busy ]; do sleep 1; done` waits for a condition, as
		// long as it holds, maybe not at all: its sleep is no length.
		return 0, false, howExec
	}
	var total int64
	sleeps, others := 0, 0
	for _, f := range stmts {
		if base(f[0]) == "sleep" {
			s, ok := sleepArgs(f[1:])
			if !ok {
				return 0, false, howExec
			}
			total += s
			sleeps++
			continue
		}
		others++
	}
	switch {
	case sleeps == 0:
		return 0, false, howExec
	case others == 0:
		return total, true, HowExecSleep
	}
	return total, true, HowExecScript
}

// loop matches a shell loop (while, until, for) starting a statement.
var loop = regexp.MustCompile(`(^|[;&|\n(]|\bdo|\bthen)\s*(while|until|for)\s`)

// LoopPattern returns loop's regular expression (Go syntax): the local
// cluster's termination Stages count a script with a loop as unknown too.
func LoopPattern() string { return loop.String() }

// sleepNumber is one argument of sleep(1) as read here: a decimal number
// and an optional unit suffix. Other spellings GNU sleep takes (exponents,
// hex, "infinity") are left unknown.
var sleepNumber = regexp.MustCompile(`^([0-9]+\.?[0-9]*|\.[0-9]+)([smhd]?)$`)

// unitSeconds maps a sleep(1) suffix to seconds.
var unitSeconds = map[string]float64{"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}

// sleepArgs parses the arguments of sleep(1): one or more durations that
// GNU and busybox sleep add up, each a number with an optional s, m, h or d
// suffix (surrounding quotes are dropped). The sum is rounded up to whole
// seconds. The local cluster's termination Stages compute the same number
// (internal/localcluster, preStopSecondsJQ; a test keeps them in step).
func sleepArgs(args []string) (int64, bool) {
	if len(args) == 0 {
		return 0, false
	}
	var total float64
	for _, a := range args {
		m := sleepNumber.FindStringSubmatch(strings.Trim(a, `"'`))
		if m == nil {
			return 0, false
		}
		f, err := strconv.ParseFloat(m[1], 64)
		if err != nil || f > 1e9 {
			return 0, false
		}
		total += f * unitSeconds[m[2]]
	}
	return int64(math.Ceil(total)), true
}

func base(path string) string {
	if i := strings.LastIndex(path, "/"); i >= 0 {
		return path[i+1:]
	}
	return path
}
