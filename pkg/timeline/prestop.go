package timeline

import (
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// preStopOf reads how long a container's preStop hook delays SIGTERM: the
// native lifecycle.preStop.sleep.seconds (KEP-3960), or an exec hook that is
// a plain `sleep N` (directly or through `sh -c`). The kubelet sends SIGTERM
// only after the hook returns (kubelet killContainer: executePreStopHook,
// then StopContainer with the remaining grace period).
//
// It is the one place to switch to pkg/prestop once that lands on main.
func preStopOf(c *corev1.Container) PreStop {
	if c.Lifecycle == nil || c.Lifecycle.PreStop == nil {
		return PreStop{Known: true}
	}
	h := c.Lifecycle.PreStop
	switch {
	case h.Sleep != nil:
		return PreStop{Has: true, Known: true, Delay: time.Duration(h.Sleep.Seconds) * time.Second}
	case h.Exec != nil:
		if d, ok := sleepCommand(h.Exec.Command); ok {
			return PreStop{Has: true, Known: true, Delay: d}
		}
	}
	return PreStop{Has: true}
}

// sleepCommand recognises ["sleep","5"], ["/bin/sleep","5"] and
// ["sh","-c","sleep 5"] (with an optional trailing "&& ..." or "; ...").
func sleepCommand(cmd []string) (time.Duration, bool) {
	if len(cmd) == 3 && strings.HasSuffix(cmd[0], "sh") && cmd[1] == "-c" {
		script := strings.TrimSpace(cmd[2])
		if i := strings.IndexAny(script, ";&|"); i >= 0 {
			script = script[:i]
		}
		return sleepCommand(strings.Fields(script))
	}
	if len(cmd) != 2 || (cmd[0] != "sleep" && !strings.HasSuffix(cmd[0], "/sleep")) {
		return 0, false
	}
	arg := cmd[1]
	if n, err := strconv.ParseFloat(arg, 64); err == nil && n >= 0 {
		return time.Duration(n * float64(time.Second)), true
	}
	if d, err := time.ParseDuration(arg); err == nil && d >= 0 {
		return d, true
	}
	return 0, false
}
