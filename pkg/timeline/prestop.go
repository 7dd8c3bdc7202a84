package timeline

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/internal/prestop"
)

// preStopOf reads how long a container's preStop hook delays SIGTERM, with
// the project's shared parser (pkg/prestop: native sleep.seconds, exec
// `sleep N` forms, the sleeps of a shell script as a lower bound). The
// kubelet sends SIGTERM only after the hook returns (kuberuntime
// killContainer: executePreStopHook, then StopContainer with the remaining
// grace period). A tcpSocket hook is not run by the kubelet: no delay.
// sharedPID is the pod's shareProcessNamespace, where `kill 1` signals
// the pause process (prestop.DurationInPod).
func preStopOf(c *corev1.Container, sharedPID bool) PreStop {
	seconds, known, how := prestop.DurationInPod(*c, sharedPID)
	has := how != prestop.HowNone && how != prestop.HowTCPSocket
	return PreStop{Has: has, Known: known, Delay: time.Duration(seconds) * time.Second}
}

// execPreStop reports whether a container's preStop hook is an exec: the
// exec itself adds to its delay (execHookSlack).
func execPreStop(c *corev1.Container) bool {
	return c.Lifecycle != nil && c.Lifecycle.PreStop != nil && c.Lifecycle.PreStop.Exec != nil
}

// pauseSignals returns the containers whose exec preStop ends the pod's
// pause process, with the command: `kill 1` by SIGTERM or SIGINT in a pod
// that shares its process namespace, where PID 1 is pause (the audit's
// prestop-signals-pause, docs/audit.md).
func pauseSignals(spec corev1.PodSpec) map[string]string {
	out := map[string]string{}
	for _, c := range slices.Concat(spec.InitContainers, spec.Containers) {
		if stmt, sig := prestop.PauseSignal(c, ptr.Deref(spec.ShareProcessNamespace, false)); prestop.EndsPause(sig) {
			out[c.Name] = stmt
		}
	}
	return out
}

// killsByName returns the containers whose exec preStop signals processes
// by name (prestop.KillByName) in a pod that shares its process
// namespace, with the command: it reaches every container's processes.
func killsByName(spec corev1.PodSpec) map[string]string {
	out := map[string]string{}
	for _, c := range slices.Concat(spec.InitContainers, spec.Containers) {
		if !ptr.Deref(spec.ShareProcessNamespace, false) || !execPreStop(&c) {
			continue
		}
		if stmt, names, _, _ := prestop.KillByName(c.Lifecycle.PreStop.Exec.Command); len(names) > 0 {
			out[c.Name] = stmt
		}
	}
	return out
}
