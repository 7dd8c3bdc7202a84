package realnode

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// guardRules is the guard table: anything to the pod or Service range
// that would leave by an interface other than the node's own bridges or
// loopback is dropped after routing and NAT, and so is anything whose
// original destination was in them (kube-proxy programs every Service of
// the cluster, and DNATs a ClusterIP of the kwok nodes' pods to their
// made-up addresses, which the default route would take off the machine),
// and anything the pods send that would be forwarded off the pod bridge. The counters tell tests that nothing
// tried.
func guardRules() string {
	return fmt.Sprintf(`table inet %[1]s {
	chain postrouting {
		type filter hook postrouting priority 100; policy accept;
		ip daddr { %[2]s, %[3]s } oifname != { "%[4]s", "%[5]s", "lo" } counter drop
		ct original ip daddr { %[2]s, %[3]s } oifname != { "%[4]s", "%[5]s", "lo" } counter drop
	}
	chain forward {
		type filter hook forward priority 0; policy accept;
		iifname "%[4]s" oifname != "%[4]s" counter drop
	}
}
`, GuardTable, PodRange, ServiceCIDR, PodBridge, ServiceSink)
}

// setUpNetwork makes the pod bridge (with the gateway address the node's
// InternalIP is), the Service sink and its route, and the guard table,
// after checking that nothing on the machine routes either range already;
// then each further node's network namespace (setUpNodeNetwork).
func setUpNetwork(further []node) error {
	for _, cidr := range []string{PodRange, ServiceCIDR} {
		if dev, err := routedBy(cidr); err != nil {
			return err
		} else if dev != "" {
			return fmt.Errorf("%s is already routed by interface %s on this machine: the real nodes would share it", cidr, dev)
		}
	}
	cmds := [][]string{
		{"nft", "-f", "-"}, // the guard first: no packet to the ranges leaves while the rest is set up
		{"ip", "link", "add", PodBridge, "type", "bridge"},
		{"ip", "addr", "add", PodGateway + "/24", "dev", PodBridge},
		{"ip", "link", "set", PodBridge, "up"},
		{"ip", "link", "add", ServiceSink, "type", "bridge"},
		{"ip", "link", "set", ServiceSink, "up"},
		{"ip", "route", "add", ServiceCIDR, "dev", ServiceSink},
	}
	if err := runAll(cmds, guardRules()); err != nil {
		return err
	}
	for _, n := range further {
		if err := setUpNodeNetwork(n); err != nil {
			return err
		}
	}
	return nil
}

// setUpNodeNetwork makes a further node's network namespace, bound to a
// file in the node's run folder (joinPodBridge), and joins it to
// PodBridge with a veth whose namespace end has no address: the node's
// pod bridge holds its gateway, which answers ARP on the veth, and the
// machine routes the node's pod range to that gateway over PodBridge.
// Traffic between the nodes thus stays on PodBridge, which the guard lets
// through. The namespace has no default route: only real-node-0's range
// (the API forwarder, the other pods) is reachable from it.
func setUpNodeNetwork(n node) error {
	ns := n.netns()
	cmds, err := joinPodBridge(ns, n.hostVeth(), n.nodeVeth())
	if err != nil {
		return err
	}
	in := []string{"nsenter", "--net=" + ns}
	cmds = append(cmds,
		append(in, "ip", "link", "add", n.bridge(), "type", "bridge"),
		append(in, "ip", "addr", "add", n.gateway()+"/24", "dev", n.bridge()),
		append(in, "ip", "link", "set", n.bridge(), "up"),
		append(in, "ip", "link", "set", n.nodeVeth(), "up"),
		append(in, "ip", "route", "add", PodCIDR, "dev", n.nodeVeth()),
		append(in, "sh", "-c", "echo 1 > /proc/sys/net/ipv4/ip_forward"),
		[]string{"ip", "route", "add", n.podCIDR(), "via", n.gateway(), "dev", PodBridge, "onlink"},
	)
	return runAll(cmds, "")
}

// joinPodBridge makes the file a network namespace is bound to (never
// `ip netns add`, which would make /run/netns a mount point hiding the
// CRI's pod namespaces), and returns the commands that make the namespace
// and join it to PodBridge by a veth, hostVeth on the machine, inner in
// the namespace, with the namespace's loopback up.
func joinPodBridge(ns, hostVeth, inner string) ([][]string, error) {
	if err := os.MkdirAll(filepath.Dir(ns), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(ns, nil, 0o644); err != nil {
		return nil, err
	}
	return [][]string{
		{"unshare", "--net=" + ns, "true"},
		{"ip", "link", "add", hostVeth, "type", "veth", "peer", "name", inner, "netns", ns},
		{"ip", "link", "set", hostVeth, "master", PodBridge},
		{"ip", "link", "set", hostVeth, "up"},
		{"nsenter", "--net=" + ns, "ip", "link", "set", "lo", "up"},
	}, nil
}

// runAll runs each command in turn, stdin for nft.
func runAll(cmds [][]string, stdin string) error {
	for _, c := range cmds {
		cmd := exec.Command(c[0], c[1:]...)
		if c[0] == "nft" {
			cmd.Stdin = strings.NewReader(stdin)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %w: %s", strings.Join(c, " "), err, strings.TrimSpace(string(out)))
		}
	}
	return nil
}

// routedBy returns the interface of a route for exactly or inside cidr
// other than the default route, "" when there is none.
func routedBy(cidr string) (string, error) {
	_, want, err := net.ParseCIDR(cidr)
	if err != nil {
		return "", err
	}
	var routes []struct{ Dst, Dev string }
	if err := jsonOutput(&routes, "ip", "-j", "-4", "route", "show", "table", "all"); err != nil {
		return "", err
	}
	for _, r := range routes {
		_, n, err := net.ParseCIDR(r.Dst)
		if err != nil {
			if ip := net.ParseIP(r.Dst); ip != nil && want.Contains(ip) {
				return r.Dev, nil
			}
			continue
		}
		if ones, _ := n.Mask.Size(); ones > 0 && (want.Contains(n.IP) || n.Contains(want.IP)) {
			return r.Dev, nil
		}
	}
	return "", nil
}

// CheckRoute returns nil when a request to ip stays on this machine: ip is
// in the pod range of the real nodes and routed by the pod bridge (every
// node's pods are reached through it), or in the Service range and routed
// to the Service sink (kube-proxy's DNAT then sends it to a pod), and the
// guard table is in place. Tests and the demo call it before their first
// request to a real node.
func CheckRoute(ip string) error {
	addr := net.ParseIP(ip)
	if addr == nil {
		return fmt.Errorf("%q is not an IP address", ip)
	}
	want := ""
	for cidr, dev := range map[string]string{PodRange: PodBridge, ServiceCIDR: ServiceSink} {
		if _, n, _ := net.ParseCIDR(cidr); n.Contains(addr) {
			want = dev
		}
	}
	if want == "" {
		return fmt.Errorf("%s is outside the real nodes' pod range %s and Service range %s: not sending to it", ip, PodRange, ServiceCIDR)
	}
	var routes []struct{ Dev string }
	if err := jsonOutput(&routes, "ip", "-j", "route", "get", ip); err != nil {
		return err
	}
	if len(routes) == 0 || routes[0].Dev != want {
		return fmt.Errorf("%s is routed by %v, not %s: not sending to it", ip, routes, want)
	}
	_, err := GuardDrops()
	return err
}

// GuardDrops returns how many packets the guard table has dropped: zero
// unless something tried to send the node's traffic off the machine. It
// fails when the guard table is missing.
func GuardDrops() (int64, error) {
	byChain, err := TablePackets("inet", GuardTable)
	if err != nil {
		return 0, fmt.Errorf("the guard table inet %s: %w", GuardTable, err)
	}
	var total int64
	for _, n := range byChain {
		total += n
	}
	return total, nil
}

// TablePackets returns, for each chain of an nftables table, the packets
// its rules' counters have counted.
func TablePackets(family, table string) (map[string]int64, error) {
	var doc struct {
		Nftables []struct {
			Rule *struct {
				Chain string                       `json:"chain"`
				Expr  []map[string]json.RawMessage `json:"expr"`
			} `json:"rule"`
		} `json:"nftables"`
	}
	if err := jsonOutput(&doc, "nft", "-j", "list", "table", family, table); err != nil {
		return nil, err
	}
	byChain := map[string]int64{}
	for _, e := range doc.Nftables {
		if e.Rule == nil {
			continue
		}
		for _, x := range e.Rule.Expr {
			if c, ok := x["counter"]; ok {
				var n struct{ Packets int64 }
				_ = json.Unmarshal(c, &n)
				byChain[e.Rule.Chain] += n.Packets
			}
		}
	}
	return byChain, nil
}
