// Package realnode runs one real Kubernetes node beside the local
// cluster's kwok nodes: a kubelet with containerd, runc and Debian's CNI
// plugins, and a kube-proxy in nftables mode, on this machine, joined to
// the local control plane as real-node-0. The kubelet's termination track
// and the data plane are then the real thing, for the tests and the demo.
//
// The node is machine-wide (fixed ports, routes, folders): one per machine
// at a time, behind a lock its processes hold. Up records what the machine
// had before its first change; Down undoes exactly the difference. The
// facts and pitfalls: docs/real-node.md.
package realnode
