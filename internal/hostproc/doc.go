// Package hostproc handles the long-lived processes the test machinery
// starts on this machine, outside any container: the local cluster's
// control-plane components (kwokctl's binary runtime) and the real nodes'
// parts (containerd, kubelet, kube-proxy, the forwarders). Both are plain
// host processes that outlive the command that started them and that
// fault tests pause, kill and start again, so both read /proc, take file
// locks and bind loopback ports the same way, from here.
//
// Linux only: it reads /proc.
package hostproc
