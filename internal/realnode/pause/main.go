// Command pause is the real node's pod sandbox image
// (localhost/kubectl-graceful/pause:dev, containerd's sandbox_image): it
// holds the pod's namespaces and blocks until SIGTERM or SIGINT, as
// Kubernetes' build/pause/linux/pause.c does. Every other signal is
// ignored: pause.c handles only SIGINT, SIGTERM and SIGCHLD, and as a PID
// namespace's init it never gets a signal it has no handler for, whereas
// the Go runtime's default handlers would end it on SIGQUIT, SIGHUP or
// SIGUSR1 (a `kill -QUIT 1` in a pod that shares its process namespace
// must do nothing here, as on a real node).
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signal.Ignore()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	<-sigs
}
