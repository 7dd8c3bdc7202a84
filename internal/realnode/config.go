package realnode

import (
	"fmt"
	"path/filepath"
)

// NodeName is the real node's Node name; NodeLabel and NodeTaint mark it.
// The taint keeps every pod that does not tolerate it (all the kwok tests'
// pods, DaemonSets) off the node, so only pods made for it run real
// containers.
const (
	NodeName      = "real-node-0"
	NodeLabelKey  = "kubectl-graceful.dev/node"
	NodeLabelVal  = "real"
	NodeTaintKey  = NodeLabelKey
	NodeTaintVal  = NodeLabelVal
	NodeTaintEff  = "NoSchedule"
	nodeTaintFlag = NodeTaintKey + "=" + NodeTaintVal + ":" + NodeTaintEff
)

// The node's networks. Pods get addresses on the bridge PodBridge (its
// gateway is the node's InternalIP); the cluster's Service range is routed
// to ServiceSink, a bridge with no ports, so that a ClusterIP kube-proxy
// has no rule for goes nowhere instead of to the default route. The guard
// table drops anything to either range that would leave by another
// interface (docs/real-node.md, "Network safety").
const (
	PodCIDR      = "10.244.0.0/24"
	PodGateway   = "10.244.0.1"
	PodBridge    = "graceful0"
	ServiceSink  = "gracefulsvc0"
	ServiceCIDR  = "10.96.0.0/16" // localcluster's --service-cluster-ip-range
	GuardTable   = "kubectl-graceful-guard"
	clusterDNSIP = "10.96.0.10" // no server: keeps the kubelet's MissingClusterDNS event away
)

// Ports the kubelet and kube-proxy bind on the machine: fixed, so one real
// node per machine at a time (the lock in Up).
const (
	KubeletHealthzPort   = 10248
	KubeletPort          = 10250
	ProxyHealthzPort     = 10256
	ProxyMetricsPort     = 10249
	machineRoot          = "/var/lib/kubectl-graceful-node"
	machineRun           = "/run/kubectl-graceful-node"
	defaultCNIPluginsDir = "/usr/lib/cni"
)

// layout is where the node keeps its files: machine-wide folders, since its
// ports, routes and tables are machine-wide too.
type layout struct {
	root, run string
}

func defaultLayout() layout { return layout{root: machineRoot, run: machineRun} }

func (l layout) lockPath() string        { return filepath.Join(l.run, "node.lock") }
func (l layout) statePath() string       { return filepath.Join(l.run, "state.json") }
func (l layout) logDir() string          { return filepath.Join(l.root, "logs") }
func (l layout) containerdSock() string  { return filepath.Join(l.run, "containerd", "containerd.sock") }
func (l layout) containerdConf() string  { return filepath.Join(l.root, "containerd.toml") }
func (l layout) cniConfDir() string      { return filepath.Join(l.root, "cni", "net.d") }
func (l layout) kubeletConf() string     { return filepath.Join(l.root, "kubelet.yaml") }
func (l layout) kubeletRoot() string     { return filepath.Join(l.root, "kubelet") }
func (l layout) proxyConf() string       { return filepath.Join(l.root, "kube-proxy.yaml") }
func (l layout) kubeconfig() string      { return filepath.Join(l.root, "kubeconfig") }
func (l layout) imagesDir() string       { return filepath.Join(l.root, "images") }
func (l layout) log(name string) string  { return filepath.Join(l.logDir(), name+".log") }
func (l layout) pidPath(n string) string { return filepath.Join(l.run, n+".pid") }

// containerdConfig is containerd 1.6's configuration (version 2): its own
// root, state and socket; the CRI with restrict_oom_score_adj (the machine
// lacks CAP_SYS_RESOURCE: a negative oom_score_adj makes runc fail every
// sandbox), the project's pause image, cgroupfs, and the CNI files of this
// node. The opt plugin (it creates /opt/containerd) is off.
func containerdConfig(l layout, cniBin string) string {
	return fmt.Sprintf(`version = 2
root = %q
state = %q
disabled_plugins = ["io.containerd.internal.v1.opt", "io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.tracing.processor.v1.otlp"]

[grpc]
  address = %q

[ttrpc]
  address = %q

[debug]
  address = ""

[metrics]
  address = ""

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = %q
  restrict_oom_score_adj = true
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = %q
    conf_dir = %q
    max_conf_num = 1
`, filepath.Join(l.root, "containerd"), filepath.Join(l.run, "containerd"),
		l.containerdSock(), l.containerdSock()+".ttrpc", PauseImage, cniBin, l.cniConfDir())
}

// cniConfig is the pod network: Debian's bridge plugin on PodBridge (made
// by Up beforehand, with its address), host-local addresses from PodCIDR
// kept in the node's own folder, and no masquerading.
func cniConfig(l layout) string {
	return fmt.Sprintf(`{
  "cniVersion": "1.0.0",
  "name": "kubectl-graceful",
  "plugins": [{
    "type": "bridge",
    "bridge": %q,
    "isGateway": true,
    "ipMasq": false,
    "hairpinMode": true,
    "ipam": {
      "type": "host-local",
      "ranges": [[{"subnet": %q, "gateway": %q}]],
      "routes": [{"dst": "0.0.0.0/0"}],
      "dataDir": %q
    }
  }]
}
`, PodBridge, PodCIDR, PodGateway, filepath.Join(l.root, "cni", "ipam"))
}

// kubeletConfig is the KubeletConfiguration: serving on the pod bridge's
// gateway (the node's InternalIP, where the API server's `kubectl logs`
// reaches it; kube-apiserver prefers InternalIP, see localcluster) and its
// health on 127.0.0.1, without authentication (nothing but this machine
// reaches either), cgroupfs on the
// machine's cgroup v1 (failCgroupV1: false), no image garbage collection
// (the imported images cannot be pulled again), and a readiness of pods
// reported without delay.
func kubeletConfig(l layout) string {
	return fmt.Sprintf(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: %s
port: %d
healthzBindAddress: 127.0.0.1
healthzPort: %d
readOnlyPort: 0
authentication:
  anonymous:
    enabled: true
  webhook:
    enabled: false
authorization:
  mode: AlwaysAllow
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
containerRuntimeEndpoint: unix://%s
clusterDNS: [%q]
clusterDomain: cluster.local
resolvConf: ""
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard:
  memory.available: "100Mi"
  nodefs.available: "1%%"
  imagefs.available: "1%%"
serializeImagePulls: false
rotateCertificates: false
serverTLSBootstrap: false
registerNode: true
registerWithTaints:
- key: %q
  value: %q
  effect: %q
staticPodPath: ""
`, PodGateway, KubeletPort, KubeletHealthzPort, l.containerdSock(), clusterDNSIP, NodeTaintKey, NodeTaintVal, NodeTaintEff)
}

// proxyConfig is the KubeProxyConfiguration: nftables mode, bound to
// loopback, NodePorts only on the pod bridge's address, and no conntrack
// sysctls touched (zero leaves each as the machine has it).
func proxyConfig(l layout) string {
	return fmt.Sprintf(`apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: nftables
clientConnection:
  kubeconfig: %q
hostnameOverride: %q
bindAddress: 127.0.0.1
healthzBindAddress: 127.0.0.1:%d
metricsBindAddress: 127.0.0.1:%d
clusterCIDR: %q
detectLocalMode: ClusterCIDR
nodePortAddresses: [%q]
conntrack:
  maxPerCore: 0
  min: 0
  tcpEstablishedTimeout: 0s
  tcpCloseWaitTimeout: 0s
`, l.kubeconfig(), NodeName, ProxyHealthzPort, ProxyMetricsPort, PodCIDR, PodGateway+"/32")
}
