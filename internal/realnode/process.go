package realnode

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/hostproc"
)

// cmdline returns a process's command line joined by spaces, "" when it
// is gone.
func cmdline(pid int) string { return strings.Join(hostproc.Args(pid), " ") }

// alive reports whether pid still runs the given node part (a pid reused
// by another program is not ours to kill).
func alive(pid int, mark string) bool {
	return pid > 0 && strings.Contains(cmdline(pid), mark)
}

// killNode stops the nodes' processes: kube-proxy and the kubelets first
// (nothing restarts a container then), the containers by their cgroups,
// the containerd shims by their address, then containerd and the API
// forwarder. SIGKILL: the nodes' state is disposable, and Down must not
// wait on a stuck hook.
func killNode(s *machineState, l layout) {
	killNodeAgents(s)
	_ = hostproc.KillAndWait(10*time.Second, cgroupProcs(s)...)
	var daemons []int
	for _, n := range nodes() {
		_ = hostproc.KillAndWait(10*time.Second, processesMentioning(n.l.containerdSock())...)
		if pid := s.Pids[n.pidKey("containerd")]; alive(pid, n.l.containerdConf()) {
			daemons = append(daemons, pid)
		}
	}
	for _, key := range []string{forwarderKey, ingressKey} {
		if pid := s.Pids[key]; alive(pid, key) {
			daemons = append(daemons, pid)
		}
	}
	_ = hostproc.KillAndWait(10*time.Second, daemons...)
}

// killNodeAgents kills every node's kube-proxy and kubelet.
func killNodeAgents(s *machineState) {
	var victims []int
	for _, n := range nodes() {
		for _, part := range []string{"kube-proxy", "kubelet"} {
			if pid := s.Pids[n.pidKey(part)]; alive(pid, n.l.root) {
				victims = append(victims, pid)
			}
		}
	}
	_ = hostproc.KillAndWait(10*time.Second, victims...)
}

// cgroupProcs lists the processes in cgroups made since the snapshot: the
// pods' containers.
func cgroupProcs(s *machineState) []int {
	var pids []int
	for h, had := range s.Cgroups {
		for _, n := range names(filepath.Join(cgroupRoot, h)) {
			if contains(had, n) || !ownCgroup(n) {
				continue
			}
			_ = filepath.WalkDir(filepath.Join(cgroupRoot, h, n), func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && d.Name() == "cgroup.procs" {
					b, _ := os.ReadFile(p)
					for _, f := range strings.Fields(string(b)) {
						if pid, err := strconv.Atoi(f); err == nil {
							pids = append(pids, pid)
						}
					}
				}
				return nil
			})
		}
	}
	return pids
}

// processesMentioning lists processes whose command line contains s.
func processesMentioning(s string) []int {
	var pids []int
	for _, n := range names("/proc") {
		if pid, err := strconv.Atoi(n); err == nil && pid != os.Getpid() && strings.Contains(cmdline(pid), s) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// Processes returns a running real node's processes by part: "kubelet",
// "kube-proxy", "containerd" and "shims" (containerd-shim-runc-v2, one per
// pod), for measuring what the node costs; real-node-1's also "apiforward",
// the forwarder only it needs. It fails when no node runs.
func Processes(nodeName string) (map[string][]int, error) {
	s, err := readState(defaultLayout())
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, fmt.Errorf("no real node runs (no %s)", defaultLayout().statePath())
	}
	for _, n := range nodes() {
		if n.name != nodeName {
			continue
		}
		out := map[string][]int{}
		marks := map[string]string{"kubelet": n.l.root, "kube-proxy": n.l.root, "containerd": n.l.containerdConf()}
		for part, mark := range marks {
			if pid := s.Pids[n.pidKey(part)]; alive(pid, mark) {
				out[part] = []int{pid}
			}
		}
		if pid := s.Pids[forwarderKey]; n.index > 0 && alive(pid, forwarderKey) {
			out[forwarderKey] = []int{pid}
		}
		for _, pid := range processesMentioning(n.l.containerdSock()) {
			if strings.Contains(cmdline(pid), "containerd-shim") {
				out["shims"] = append(out["shims"], pid)
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("no real node is called %s", nodeName)
}
