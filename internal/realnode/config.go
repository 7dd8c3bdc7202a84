package realnode

import (
	"fmt"
	"path/filepath"
)

// NodeName is the first real node's Node name, SecondNodeName the
// second's; NodeLabel and NodeTaint mark both. The taint keeps every pod
// that does not tolerate it (all the kwok tests' pods, DaemonSets) off the
// real nodes, so only pods made for them run real containers. The second
// node also carries SpareTaint: only pods that tolerate it too (drain tests,
// the demo's drain) land there, so every other real-node test keeps to
// real-node-0, whose containerd, cgroups and processes it reads.
const (
	NodeName       = "real-node-0"
	SecondNodeName = "real-node-1"
	SpareTaintKey  = "kubectl-graceful.dev/spare"
	SpareTaintVal  = "true"
	NodeLabelKey   = "kubectl-graceful.dev/node"
	NodeLabelVal   = "real"
	NodeTaintKey   = NodeLabelKey
	NodeTaintVal   = NodeLabelVal
	NodeTaintEff   = "NoSchedule"
)

// The nodes' networks. real-node-0's pods get addresses on the bridge
// PodBridge (its gateway is the node's InternalIP); real-node-1 runs in its
// own network namespace, joined to PodBridge by a veth, with its pods on a
// bridge of its own there (node). PodRange holds every node's pod range.
// The cluster's Service range is routed to ServiceSink, a bridge with no
// ports, so that a ClusterIP kube-proxy has no rule for goes nowhere
// instead of to the default route. The guard table drops anything to
// either range that would leave by another interface (docs/real-node.md,
// "Network safety").
const (
	PodRange     = "10.244.0.0/16"
	PodCIDR      = "10.244.0.0/24"
	PodGateway   = "10.244.0.1"
	PodBridge    = "graceful0"
	ServiceSink  = "gracefulsvc0"
	ServiceCIDR  = "10.96.0.0/16" // localcluster's --service-cluster-ip-range
	GuardTable   = "kubectl-graceful-guard"
	clusterDNSIP = "10.96.0.10" // no server: keeps the kubelet's MissingClusterDNS event away
)

// Ports the kubelet and kube-proxy bind: real-node-0's on the machine,
// fixed, so one set of real nodes per machine at a time (the lock in Up);
// real-node-1's the same in its own network namespace. APIForwardPort is
// where real-node-1 reaches the API server, which listens on loopback only:
// a forwarder on PodGateway.
const (
	KubeletHealthzPort   = 10248
	KubeletPort          = 10250
	ProxyHealthzPort     = 10256
	ProxyMetricsPort     = 10249
	APIForwardPort       = 16443
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

// cniConfig is the pod network: Debian's bridge plugin on the node's
// bridge (made by Up beforehand, with its address), host-local addresses
// from the node's pod range kept in the node's own folder, and no
// masquerading. The network's name names libcni's cache files.
func cniConfig(n node) string {
	return fmt.Sprintf(`{
  "cniVersion": "1.0.0",
  "name": %q,
  "plugins": [{
    "type": "bridge",
    "bridge": %q,
    "isGateway": true,
    "ipMasq": false,
    "hairpinMode": true,
    "ipam": {
      "type": "host-local",
      "ranges": [[{"subnet": %q, "gateway": %q, "rangeEnd": %q}]],
      "routes": [{"dst": "0.0.0.0/0"}],
      "dataDir": %q
    }
  }]
}
`, n.cniNetwork(), n.bridge(), n.podCIDR(), n.gateway(), n.podRangeEnd(), filepath.Join(n.l.root, "cni", "ipam"))
}

// kubeletLeaseSeconds and kubeletStatusSeconds are the kubelet's
// nodeLeaseDurationSeconds and nodeStatusUpdateFrequency (seconds).
const (
	kubeletLeaseSeconds  = 40
	kubeletStatusSeconds = 10
)

// kubeletConfig is the KubeletConfiguration: serving on the pod bridge's
// gateway (the node's InternalIP, where the API server's `kubectl logs`
// reaches it; kube-apiserver prefers InternalIP, see localcluster) and its
// health on 127.0.0.1, without authentication (nothing but this machine
// reaches either), cgroupfs on the
// machine's cgroup v1 (failCgroupV1: false), no image garbage collection
// (the imported images cannot be pulled again), and a readiness of pods
// reported without delay. Its heartbeats are Kubernetes' defaults, written
// out because the control plane's node-monitor grace period
// (localcluster.NodeMonitorGracePeriod, 50 s) is sized on them: a Lease of
// kubeletLeaseSeconds renewed every quarter of it (10 s) and a status check
// every kubeletStatusSeconds, so a kubelet stopped for 10 s keeps its node
// Ready and one stopped for longer than the grace period does not.
// real-node-1's kubelet keeps its pods' cgroups
// under a root of their own and their logs in its folder, so that neither
// kubelet sees the other's as orphans.
func kubeletConfig(n node) string {
	return fmt.Sprintf(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: %s
port: %d
healthzBindAddress: %s
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
%sstaticPodPath: ""
nodeLeaseDurationSeconds: %d
nodeStatusUpdateFrequency: %ds
%s`, n.gateway(), KubeletPort, n.healthAddr(), KubeletHealthzPort, n.l.containerdSock(), clusterDNSIP, n.taintsYAML(),
		kubeletLeaseSeconds, kubeletStatusSeconds, n.kubeletExtra())
}

// proxyConfig is the KubeProxyConfiguration: nftables mode, bound to
// loopback, NodePorts only on the pod bridge's address, and no conntrack
// sysctls touched (zero leaves each as the machine has it). Its health is
// where Up checks it: real-node-1's on its gateway, which the machine
// routes to.
func proxyConfig(n node) string {
	return fmt.Sprintf(`apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: nftables
clientConnection:
  kubeconfig: %q
hostnameOverride: %q
bindAddress: 127.0.0.1
healthzBindAddress: %s:%d
metricsBindAddress: 127.0.0.1:%d
clusterCIDR: %q
detectLocalMode: ClusterCIDR
nodePortAddresses: [%q]
conntrack:
  maxPerCore: 0
  min: 0
  tcpEstablishedTimeout: 0s
  tcpCloseWaitTimeout: 0s
`, n.l.kubeconfig(), n.name, n.healthAddr(), ProxyHealthzPort, ProxyMetricsPort, n.podCIDR(), n.gateway()+"/32")
}
