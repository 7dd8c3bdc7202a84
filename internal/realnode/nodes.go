package realnode

import (
	"cmp"
	"fmt"
	"path/filepath"
	"strconv"
)

// node is one real node: real-node-0 in the machine's network namespace,
// real-node-i (i > 0) in a network namespace of its own, joined to
// PodBridge by a veth, with the pod range 10.244.i.0/24 on a bridge there.
type node struct {
	index int
	name  string
	l     layout
}

// nodes are the real nodes Up starts, in order.
func nodes() []node {
	l := defaultLayout()
	second := layout{root: filepath.Join(l.root, "node1"), run: filepath.Join(l.run, "node1")}
	return []node{{0, NodeName, l}, {1, SecondNodeName, second}}
}

func (n node) podCIDR() string { return fmt.Sprintf("10.244.%d.0/24", n.index) }
func (n node) gateway() string { return fmt.Sprintf("10.244.%d.1", n.index) }
func (n node) bridge() string  { return "graceful" + strconv.Itoa(n.index) }

// podRangeEnd is the last address the node's IPAM gives a pod: those
// above are kept for the machine's own (IngressIP).
func (n node) podRangeEnd() string { return fmt.Sprintf("10.244.%d.239", n.index) }

// cniNetwork is the CNI network's name: libcni names its cache files after
// it.
func (n node) cniNetwork() string { return cmp.Or(n.cgroupParent(), "kubectl-graceful") }

// healthAddr is where the kubelet's and kube-proxy's health answer: the
// machine's loopback for real-node-0, the gateway (routed from the
// machine) for the others.
func (n node) healthAddr() string {
	if n.index == 0 {
		return "127.0.0.1"
	}
	return n.gateway()
}

// netns is the file the node's network namespace is bound to, "" for the
// machine's own. It is not in /run/netns: `ip netns add` would make that
// folder a mount point over the CRI's pod namespaces
// (docs/real-node.md).
func (n node) netns() string {
	if n.index == 0 {
		return ""
	}
	return filepath.Join(n.l.run, "netns")
}

// hostVeth and nodeVeth are the two ends of the veth joining the node's
// namespace to PodBridge.
func (n node) hostVeth() string { return fmt.Sprintf("gnode%dh", n.index) }
func (n node) nodeVeth() string { return fmt.Sprintf("gnode%dn", n.index) }

// cgroupParent is the kubelet's cgroupRoot: "" (the top) for real-node-0,
// a folder of its own in every hierarchy for the others.
func (n node) cgroupParent() string {
	if n.index == 0 {
		return ""
	}
	return "kubectl-graceful-node" + strconv.Itoa(n.index)
}

// pidKey names a part's pid in the state file: real-node-0's as before,
// the others' prefixed with the node's name.
func (n node) pidKey(part string) string {
	if n.index == 0 {
		return part
	}
	return n.name + "/" + part
}

// command wraps a daemon's command line so that it runs in the node's
// network namespace (and in the machine's mount namespace: `ip netns exec`
// would mount a fresh /sys over the cgroups the kubelet needs).
func (n node) command(args []string) []string {
	if n.netns() == "" {
		return args
	}
	return append([]string{"nsenter", "--net=" + n.netns()}, args...)
}

func (n node) taintsYAML() string {
	t := fmt.Sprintf("- key: %q\n  value: %q\n  effect: %q\n", NodeTaintKey, NodeTaintVal, NodeTaintEff)
	if n.index > 0 {
		t += fmt.Sprintf("- key: %q\n  value: %q\n  effect: %q\n", SpareTaintKey, SpareTaintVal, NodeTaintEff)
	}
	return t
}

func (n node) kubeletExtra() string {
	if n.index == 0 {
		return ""
	}
	return fmt.Sprintf("cgroupRoot: /%s\npodLogsDir: %s\n", n.cgroupParent(), filepath.Join(n.l.root, "pod-logs"))
}
