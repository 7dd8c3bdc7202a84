package realnode

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// The Ingress controller's place (docs/ingress.md): a network namespace
// of its own, joined to PodBridge by a veth whose namespace end holds
// IngressIP, an address of real-node-0's pod range that its IPAM never
// gives (podRangeEnd). Its only routes lead to the real nodes' pod ranges:
// it dials pod addresses straight from EndpointSlices, and a kwok pod's
// made-up address, or anything off the machine, has no route there. It
// serves IngressNamespace, the namespace of the real-node pods the tests
// put behind it, and demoNamespace, make demo's (examples/real-node).
const (
	IngressIP        = "10.244.0.250"
	IngressWebPort   = 80
	IngressAPIPort   = 9000
	IngressNamespace = "graceful-l7"
	demoNamespace    = "graceful-real"
	ingressKey       = "traefik"
	ingressHostVeth  = "gingressh"
	ingressVeth      = "gingressn"
)

// IngressNetns is the file the Ingress controller's network namespace is
// bound to (not in /run/netns, as for the nodes: nodes.go's netns).
func IngressNetns() string { return filepath.Join(defaultLayout().run, "ingress", "netns") }

// IngressAPI is the address of the Ingress controller's API, as a URL.
func IngressAPI() string {
	return "http://" + net.JoinHostPort(IngressIP, strconv.Itoa(IngressAPIPort))
}

// IngressAccessLog is the Ingress controller's JSON access log.
func IngressAccessLog() string { return defaultLayout().log("traefik-access") }

// startIngressLate starts the Ingress controller beside real nodes that
// were started without it (make ingress came after them).
func startIngressLate(ctx context.Context, o Options, l layout, lock *os.File, s *machineState) error {
	if o.Traefik == "" || s == nil {
		return nil
	}
	if _, err := os.Stat(IngressNetns()); err == nil {
		return nil
	}
	st := starter{ctx: ctx, o: o, lock: lock, s: s, state: l}
	if err := st.startIngress(o.Traefik); err != nil {
		return fmt.Errorf("the Ingress controller: %w (make cluster-down, then make cluster-up, starts it afresh)", err)
	}
	return nil
}

// startIngress makes the Ingress controller's network namespace and
// starts Traefik (bin) in it, reaching the API server through the
// forwarder with real-node-1's kubeconfig, and waits for its API.
func (st *starter) startIngress(bin string) error {
	ns := IngressNetns()
	cmds, err := joinPodBridge(ns, ingressHostVeth, ingressVeth)
	if err != nil {
		return err
	}
	in := []string{"nsenter", "--net=" + ns}
	cmds = append(cmds,
		append(in, "ip", "addr", "add", IngressIP+"/24", "dev", ingressVeth),
		append(in, "ip", "link", "set", ingressVeth, "up"))
	for _, n := range nodes()[1:] {
		cmds = append(cmds, append(in, "ip", "route", "add", n.podCIDR(), "via", n.gateway(), "dev", ingressVeth, "onlink"))
	}
	if err := runAll(cmds, ""); err != nil {
		return err
	}
	l := defaultLayout()
	args := append(append(in, "env", "KUBECONFIG="+nodes()[1].l.kubeconfig(), bin), traefikFlags(IngressAccessLog())...)
	apiUp := func() error { return getOK(IngressAPI() + "/api/version") }
	if err := st.daemon(l, ingressKey, ingressKey, 30*time.Second, apiUp, args...); err != nil {
		return err
	}
	fmt.Fprintf(st.o.Log, "Ingress controller Traefik serving namespaces %s, %s at http://%s/ (API %s).\n", IngressNamespace, demoNamespace, IngressIP, IngressAPI())
	return nil
}

// traefikFlags configure Traefik as docs/ingress.md says: no calls home,
// its API on IngressIP, Ingresses of IngressNamespace and demoNamespace only (no
// IngressClasses or Nodes: no rebuild on every kwok heartbeat), a Service
// with no endpoints answered 503 instead of 404, a 1 s stop, and the
// JSON access log at accessLog, the per-request truth.
func traefikFlags(accessLog string) []string {
	return []string{
		"--global.checkNewVersion=false", "--global.sendAnonymousUsage=false",
		"--entryPoints.web.address=" + net.JoinHostPort(IngressIP, strconv.Itoa(IngressWebPort)),
		"--entryPoints.traefik.address=" + net.JoinHostPort(IngressIP, strconv.Itoa(IngressAPIPort)),
		"--entryPoints.web.transport.lifeCycle.graceTimeOut=1s",
		"--api.insecure=true", "--api.dashboard=false",
		"--providers.kubernetesIngress=true",
		"--providers.kubernetesIngress.namespaces=" + IngressNamespace + "," + demoNamespace,
		"--providers.kubernetesIngress.disableClusterScopeResources=true",
		"--providers.kubernetesIngress.allowEmptyServices=true",
		"--accesslog=true", "--accesslog.format=json", "--accesslog.filepath=" + accessLog,
	}
}

// IngressPid returns the pid of the running Ingress controller, or an
// error saying that none runs.
func IngressPid() (int, error) {
	s, err := readState(defaultLayout())
	if err != nil {
		return 0, err
	}
	if s != nil {
		if pid := s.running(ingressKey, ingressKey); pid > 0 {
			return pid, nil
		}
	}
	return 0, fmt.Errorf("no Ingress controller runs (make ingress, then make cluster-up)")
}
