package realnode

import (
	"slices"
	"testing"
)

// Down undoes what the node made, not whatever appeared on the machine
// since it started: another program's mount, link, table or cgroup stays.
func TestRestoreTouchesOnlyTheNodesOwn(t *testing.T) {
	l := defaultLayout()
	for _, c := range []struct {
		what string
		own  bool
	}{
		{"mount " + l.root + "/containerd/io.containerd.runtime.v2.task/k8s.io/x/rootfs", true},
		{"mount /run/netns/cni-1234", true},
		{"mount " + l.run + "/node1/netns", true},
		{"mount /run/user/0", false},
		{"mount /var/lib/docker/overlay2/x/merged", false},
	} {
		if got := ownMount(c.what[len("mount "):], l); got != c.own {
			t.Errorf("%s: own %v, want %v", c.what, got, c.own)
		}
	}
	for n, own := range map[string]bool{PodBridge: true, ServiceSink: true, "veth1a2b3c": true, "gnode1h": true, "docker0": false, "wg0": false, "eth1": false} {
		if ownLink(n) != own {
			t.Errorf("link %s: own %v, want %v", n, !own, own)
		}
	}
	for n, own := range map[string]bool{"kubepods": true, "kubectl-graceful-node1": true, "docker": false, "system.slice": false, "user.slice": false} {
		if ownCgroup(n) != own {
			t.Errorf("cgroup %s: own %v, want %v", n, !own, own)
		}
	}
	if slices.Contains(ownTables, "inet firewalld") || slices.Contains(ownTables, "ip docker") || !slices.Contains(ownTables, "inet "+GuardTable) {
		t.Errorf("own tables %v", ownTables)
	}
}
