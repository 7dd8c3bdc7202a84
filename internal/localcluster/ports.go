package localcluster

import (
	"fmt"
	"strings"

	"github.com/kubectl-graceful/kubectl-graceful/internal/hostproc"
)

// kwokctlConfig returns a KwokctlConfiguration document that binds every
// component to loopback on ports picked here. kwokctl's own port choice only
// avoids clusters in its own working folder, so two checkouts (or CI beside
// a developer) starting at once took the same ports; and its default bind
// address is 0.0.0.0, while this project's network tests stay on loopback.
func kwokctlConfig() (string, error) {
	fields := []string{"kubeApiserverPort", "etcdPort", "etcdPeerPort", "kubeControllerManagerPort", "kubeSchedulerPort", "kwokControllerPort"}
	ports, err := hostproc.FreePorts(len(fields))
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
