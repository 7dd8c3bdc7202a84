package localcluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestComponentsPatches: the Service range on kube-apiserver and
// kube-controller-manager, the client rates on the controller manager and
// the scheduler, and a cluster made with other patches is not current.
func TestComponentsPatches(t *testing.T) {
	p := componentsPatches()
	for _, want := range []string{
		"- name: kube-apiserver\n  extraArgs:\n  - key: service-cluster-ip-range\n    value: \"" + ServiceCIDR + "\"\n",
		"- name: kube-controller-manager\n  extraArgs:\n  - key: service-cluster-ip-range\n    value: \"" + ServiceCIDR + "\"\n  - key: kube-api-qps\n    value: \"300\"\n  - key: kube-api-burst\n    value: \"600\"\n",
		"- name: kube-scheduler\n  extraArgs:\n  - key: kube-api-qps\n    value: \"300\"\n  - key: kube-api-burst\n    value: \"600\"\n",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("patches lack\n%s\nin\n%s", want, p)
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
