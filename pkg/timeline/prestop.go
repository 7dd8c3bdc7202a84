package timeline

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-graceful/kubectl-graceful/internal/prestop"
)

// preStopOf reads how long a container's preStop hook delays SIGTERM, with
// the project's shared parser (pkg/prestop: native sleep.seconds, exec
// `sleep N` forms, the sleeps of a shell script as a lower bound). The
// kubelet sends SIGTERM only after the hook returns (kuberuntime
// killContainer: executePreStopHook, then StopContainer with the remaining
// grace period). A tcpSocket hook is not run by the kubelet: no delay.
func preStopOf(c *corev1.Container) PreStop {
	seconds, known, how := prestop.Duration(*c)
	has := how != prestop.HowNone && how != prestop.HowTCPSocket
	return PreStop{Has: has, Known: known, Delay: time.Duration(seconds) * time.Second}
}

// execPreStop reports whether a container's preStop hook is an exec: the
// exec itself adds to its delay (execHookSlack).
func execPreStop(c *corev1.Container) bool {
	return c.Lifecycle != nil && c.Lifecycle.PreStop != nil && c.Lifecycle.PreStop.Exec != nil
}
