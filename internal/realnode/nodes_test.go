package realnode

import (
	"strings"
	"testing"
)

// real-node-1 must not share anything machine-wide with real-node-0 that
// either would clean up or bind: its own pod range, bridge, CNI network,
// addresses, cgroup root and log folder, and the spare taint that keeps the
// other real-node tests off it.
func TestSecondNodeOwnsItsParts(t *testing.T) {
	all := nodes()
	if len(all) != 2 || all[0].name != NodeName || all[1].name != SecondNodeName {
		t.Fatalf("nodes %v", all)
	}
	first, second := all[0], all[1]
	if first.netns() != "" || first.gateway() != PodGateway || first.podCIDR() != PodCIDR || first.bridge() != PodBridge {
		t.Errorf("real-node-0 changed: netns %q, gateway %s, range %s, bridge %s", first.netns(), first.gateway(), first.podCIDR(), first.bridge())
	}
	if !strings.HasPrefix(second.netns(), machineRun+"/") {
		t.Errorf("real-node-1's namespace file %s is not in the nodes' run folder (never /run/netns)", second.netns())
	}
	for what, conf := range map[string]string{
		"kubelet": kubeletConfig(second), "kube-proxy": proxyConfig(second), "cni": cniConfig(second),
		"containerd": containerdConfig(second.l, "/usr/lib/cni"),
	} {
		for _, shared := range []string{first.l.root + "/kubelet", first.l.containerdSock() + `"`, `"10.244.0.0/24"`, `"graceful0"`, "address: 10.244.0.1"} {
			if strings.Contains(conf, shared) {
				t.Errorf("real-node-1's %s config holds real-node-0's %s:\n%s", what, shared, conf)
			}
		}
	}
	k := kubeletConfig(second)
	for _, want := range []string{"cgroupRoot: /kubectl-graceful-node1", "podLogsDir: " + second.l.root, "address: 10.244.1.1", `key: "` + SpareTaintKey + `"`} {
		if !strings.Contains(k, want) {
			t.Errorf("real-node-1's kubelet config lacks %q", want)
		}
	}
	if k0 := kubeletConfig(first); strings.Contains(k0, SpareTaintKey) || strings.Contains(k0, "cgroupRoot") {
		t.Errorf("real-node-0's kubelet config has the spare taint or a cgroupRoot:\n%s", k0)
	}
	if !strings.Contains(guardRules(), PodRange) {
		t.Errorf("the guard does not cover every node's pod range %s", PodRange)
	}
}
