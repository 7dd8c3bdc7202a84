// Command pause is the real node's pod sandbox image
// (localhost/kubectl-graceful/pause:dev, containerd's sandbox_image): it
// holds the pod's namespaces and blocks until SIGTERM or SIGINT.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	<-sigs
}
