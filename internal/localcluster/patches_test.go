package localcluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestComponentsPatches: the Service range on kube-apiserver and
// kube-controller-manager, the client rates and no leader election on the
// controller manager and the scheduler, Kubernetes' default node monitor
// grace period and period on the controller manager, kwok's fake node
// Leases renewed every 10 s, and a cluster made with other patches is not
// current.
func TestComponentsPatches(t *testing.T) {
	p := componentsPatches()
	for _, want := range []string{
		"- name: kube-apiserver\n  extraArgs:\n  - key: service-cluster-ip-range\n    value: \"" + ServiceCIDR + "\"\n",
		"- name: kube-controller-manager\n  extraArgs:\n  - key: service-cluster-ip-range\n    value: \"" + ServiceCIDR + "\"\n  - key: kube-api-qps\n    value: \"300\"\n  - key: kube-api-burst\n    value: \"600\"\n",
		"- name: kube-scheduler\n  extraArgs:\n  - key: kube-api-qps\n    value: \"300\"\n  - key: kube-api-burst\n    value: \"600\"\n",
		"  - key: leader-elect\n    value: \"false\"\n  - key: node-monitor-grace-period\n    value: \"50s\"\n  - key: node-monitor-period\n    value: \"5s\"\n- name: kube-scheduler\n",
		"  - key: node-lease-duration-seconds\n    value: \"40\"\n",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("patches lack\n%s\nin\n%s", want, p)
		}
	}
	// Each runs as the only instance: with leader election a lease renewal
	// late on a loaded machine makes it exit, and nothing restarts it.
	for _, c := range []string{"kube-controller-manager", "kube-scheduler"} {
		block := p[strings.Index(p, "- name: "+c+"\n"):]
		if next := strings.Index(block[1:], "- name: "); next >= 0 {
			block = block[:next+1]
		}
		if !strings.Contains(block, "  - key: leader-elect\n    value: \"false\"\n") {
			t.Errorf("%s runs with leader election:\n%s", c, block)
		}
	}
	o := ClusterOptions{OutputDir: t.TempDir()}
	if err := patchesCurrent(o); err == nil {
		t.Errorf("no kwokctl configuration: want an error")
	}
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(o.OutputDir, "kwokctl.yaml"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("options:\n  bindAddress: 127.0.0.1\n" + strings.Replace(p, "300", "20", 1) + "---\nstages\n")
	if err := patchesCurrent(o); err == nil {
		t.Errorf("a cluster made with other flags is current")
	}
	write("options:\n  bindAddress: 127.0.0.1\n" + p + "---\nstages\n")
	if err := patchesCurrent(o); err != nil {
		t.Errorf("a cluster made with today's flags: %v", err)
	}
}
