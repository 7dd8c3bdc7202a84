package localcluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ControllerQPS and ControllerBurst are the client-side rate limits
// (requests per second, burst in requests) of kube-controller-manager and
// kube-scheduler. Their defaults (20/30 and 50/100) are sized for real
// clusters whose pods take seconds to start; with kwok's instant pods the
// controllers' own client is what bounds a fixture of thousands of pods
// (a 500-pod fixture took 39 s to be Ready at 20 requests per second:
// every pod is a create by the ReplicaSet controller and a binding by the
// scheduler, besides status updates). The API server's priority and
// fairness still applies.
const (
	ControllerQPS   = 300
	ControllerBurst = 600
)

// componentsPatches returns kwokctl's componentsPatches: the Service range
// (serviceCIDRArgs), the controllers' client rates and no leader election,
// kwok kept to the fake nodes, and the API server reaching kubelets by
// InternalIP.
func componentsPatches() string {
	// One instance of each: leader election only lets a loaded machine
	// (a lease renewal late by its deadline) stop them, and nothing here
	// restarts them.
	rates := [][2]string{{"kube-api-qps", fmt.Sprint(ControllerQPS)}, {"kube-api-burst", fmt.Sprint(ControllerBurst)}, {"leader-elect", "false"}}
	args := map[string][][2]string{
		// The real node's kubelet serves on its InternalIP; the default
		// order tries its hostname first, which nothing resolves here.
		"kube-apiserver":          append(serviceCIDRArgs(), [2]string{"kubelet-preferred-address-types", "InternalIP"}),
		"kube-controller-manager": append(serviceCIDRArgs(), rates...),
		"kube-scheduler":          rates,
		// kwokctl starts kwok with --manage-all-nodes=true; the later
		// flags win, so kwok plays the kubelet only for the nodes
		// annotated as fake and leaves the real node (realnode) alone.
		"kwok-controller": {{"manage-all-nodes", "false"}, {"manage-nodes-with-annotation-selector", FakeNodeAnnotation + "=fake"}},
	}
	var b strings.Builder
	b.WriteString("componentsPatches:\n")
	for _, c := range []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok-controller"} {
		fmt.Fprintf(&b, "- name: %s\n  extraArgs:\n", c)
		for _, kv := range args[c] {
			fmt.Fprintf(&b, "  - key: %s\n    value: %q\n", kv[0], kv[1])
		}
	}
	return b.String()
}

// patchesCurrent returns nil when the cluster of o was created with
// today's componentsPatches, and an error saying so otherwise (a cluster
// made by an older checkout keeps the flags it was started with).
func patchesCurrent(o ClusterOptions) error {
	data, err := os.ReadFile(filepath.Join(o.OutputDir, "kwokctl.yaml"))
	if err != nil {
		return fmt.Errorf("its kwokctl configuration: %v", err)
	}
	if !strings.Contains(string(data), componentsPatches()) {
		return fmt.Errorf("made with other control-plane flags")
	}
	return nil
}
