package localcluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
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

// NodeMonitorGracePeriod and NodeMonitorPeriod are kube-controller-manager's
// --node-monitor-grace-period (how long a node may go without a heartbeat,
// a status update or a Lease renewal, before the node lifecycle controller
// sets its Ready condition to Unknown) and --node-monitor-period (how often
// it looks): Kubernetes' own defaults since 1.32 (kubernetes/kubernetes
// pull 126287), where kwokctl starts it with five times those (its
// heartbeat factor: 3m20s and 25s), so that a node whose kubelet stopped
// would be seen silent only after about 4 minutes.
//
// FakeNodeLeaseSeconds is kwok's --node-lease-duration-seconds: kwok
// renews each fake node's Lease every quarter of it (10 s), as a kubelet
// does with its default 40 s, so that a fake node misses four renewals
// before the grace period ends. kwokctl's own 200 s (a renewal every 50 s)
// would leave the fake nodes' heartbeat to the node-heartbeat Stage (every
// 20 to 45 s), too close to 50 s on a loaded machine. The real nodes'
// kubelets use the same 40 s Lease (internal/realnode).
const (
	NodeMonitorGracePeriod = 50 * time.Second
	NodeMonitorPeriod      = 5 * time.Second
	FakeNodeLeaseSeconds   = 40
)

// componentsPatches returns kwokctl's componentsPatches: the Service range
// (serviceCIDRArgs), the controllers' client rates and no leader election,
// the node lifecycle controller's grace period and period, kwok kept to the
// fake nodes and renewing their Leases as often as a kubelet, and the API
// server reaching kubelets by InternalIP.
func componentsPatches() string {
	// One instance of each: leader election only lets a loaded machine
	// (a lease renewal late by its deadline) stop them, and nothing here
	// restarts them.
	rates := [][2]string{{"kube-api-qps", fmt.Sprint(ControllerQPS)}, {"kube-api-burst", fmt.Sprint(ControllerBurst)}, {"leader-elect", "false"}}
	args := map[string][][2]string{
		// The real node's kubelet serves on its InternalIP; the default
		// order tries its hostname first, which nothing resolves here.
		"kube-apiserver":          append(serviceCIDRArgs(), [2]string{"kubelet-preferred-address-types", "InternalIP"}),
		"kube-controller-manager": append(append(serviceCIDRArgs(), rates...), nodeMonitorArgs()...),
		"kube-scheduler":          rates,
		// kwokctl starts kwok with --manage-all-nodes=true; the later
		// flags win, so kwok plays the kubelet only for the nodes
		// annotated as fake and leaves the real node (realnode) alone,
		// and renews their Leases every 10 s (FakeNodeLeaseSeconds).
		"kwok-controller": {{"manage-all-nodes", "false"}, {"manage-nodes-with-annotation-selector", FakeNodeAnnotation + "=fake"},
			{"node-lease-duration-seconds", fmt.Sprint(FakeNodeLeaseSeconds)}},
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

// nodeMonitorArgs are kube-controller-manager's node lifecycle flags; as
// extraArgs they come after kwokctl's own and win.
func nodeMonitorArgs() [][2]string {
	return [][2]string{
		{"node-monitor-grace-period", NodeMonitorGracePeriod.String()},
		{"node-monitor-period", NodeMonitorPeriod.String()},
	}
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
