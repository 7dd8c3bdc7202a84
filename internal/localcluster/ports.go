package localcluster

import (
	"fmt"
	"net"
	"strings"
)

// kwokctlConfig returns a KwokctlConfiguration document that binds every
// component to loopback on ports picked here. kwokctl's own port choice only
// avoids clusters in its own working folder, so two checkouts (or CI beside
// a developer) starting at once took the same ports; and its default bind
// address is 0.0.0.0, while this project's network tests stay on loopback.
func kwokctlConfig() (string, error) {
	fields := []string{"kubeApiserverPort", "etcdPort", "etcdPeerPort", "kubeControllerManagerPort", "kubeSchedulerPort", "kwokControllerPort"}
	ports, err := freePorts(len(fields))
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("apiVersion: config.kwok.x-k8s.io/v1alpha1\nkind: KwokctlConfiguration\noptions:\n  bindAddress: 127.0.0.1\n")
	for i, f := range fields {
		fmt.Fprintf(&b, "  %s: %d\n", f, ports[i])
	}
	b.WriteString(componentsPatches())
	return b.String(), nil
}

// freePorts asks the kernel for n distinct free TCP ports on 127.0.0.1. They
// are held open together so none is handed out twice, then released for the
// components to bind a moment later.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding a free port on 127.0.0.1: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
