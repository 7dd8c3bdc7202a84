// Package localcluster builds and runs the project's local Kubernetes control
// plane: real etcd, kube-apiserver, kube-controller-manager and
// kube-scheduler started on loopback by kwokctl's binary runtime, with kwok
// simulating the nodes and, through Stages, the kubelet's pod termination.
//
// Binaries are built from the Go module proxy (there is no container runtime
// and no download site on the machines this project runs on) into a per-user
// cache keyed by version, so only the first run pays for the build.
package localcluster

// KubernetesVersion is the control plane's version. The client libraries in
// go.mod are the matching v0.37.x staging modules.
const KubernetesVersion = "v1.37.2"

// EtcdVersion is the etcd server built for the cluster.
const EtcdVersion = "v3.6.16"

// KwokVersion is the kwok and kwokctl release used to run the cluster.
const KwokVersion = "v0.8.0"

// component is one binary the cluster needs, and how to build it.
type component struct {
	// Name is the binary's file name (and kwokctl's flag prefix).
	Name string
	// Version keys the cache entry.
	Version string
	// EstimateSeconds is the measured cold build time in seconds on 2 idle
	// cores, downloads included, printed on the first run. Measured on a
	// fresh machine's first `make demo`, empty Go module and build caches
	// (15 min 33 s in all; bench/RESULTS.md, 2026-12-07).
	EstimateSeconds int
	// build compiles the binary to out.
	build func(b *builder, out string) error
}

// components lists the binaries in build order: the cheapest first, so a
// failure in the tool chain shows up before the long builds.
func components() []component {
	return []component{
		{Name: "kwokctl", Version: KwokVersion, EstimateSeconds: 125, build: goInstall("sigs.k8s.io/kwok/cmd/kwokctl@" + KwokVersion)},
		{Name: "kwok", Version: KwokVersion, EstimateSeconds: 45, build: goInstall("sigs.k8s.io/kwok/cmd/kwok@" + KwokVersion)},
		{Name: "etcd", Version: EtcdVersion, EstimateSeconds: 75, build: buildEtcd},
		{Name: "kube-scheduler", Version: KubernetesVersion, EstimateSeconds: 415, build: buildKube("kube-scheduler")},
		{Name: "kube-controller-manager", Version: KubernetesVersion, EstimateSeconds: 260, build: buildKube("kube-controller-manager")},
		{Name: "kube-apiserver", Version: KubernetesVersion, EstimateSeconds: 20, build: buildKube("kube-apiserver")},
	}
}
