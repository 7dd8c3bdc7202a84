package realnode

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/hostproc"
)

// cmdline returns a process's command line joined by spaces, "" when it
// is gone.
func cmdline(pid int) string { return strings.Join(hostproc.Args(pid), " ") }

// running returns the pid the state file records under key while it
// still runs a command line holding mark (a pid reused by another program
// is not ours to kill), 0 otherwise.
func (s *machineState) running(key, mark string) int {
	if pid := s.Pids[key]; pid > 0 && strings.Contains(cmdline(pid), mark) {
		return pid
	}
	return 0
}

// part returns the pid of node n's part (PartKubelet, PartContainerd or
// PartKubeProxy) while it runs, 0 otherwise: containerd's command line
// holds its configuration file, the kubelet's and kube-proxy's the node's
// folder.
func (s *machineState) part(n node, part string) int {
	mark := n.l.root
	if part == PartContainerd {
		mark = n.l.containerdConf()
	}
	return s.running(n.pidKey(part), mark)
}

// runningNode reads the state file and the node called name. Errors: no
// real node runs, or none is called name.
func runningNode(name string) (*machineState, node, error) {
	s, err := readState(defaultLayout())
	if err != nil {
		return nil, node{}, err
	}
	if s == nil {
		return nil, node{}, fmt.Errorf("no real node runs (no %s)", defaultLayout().statePath())
	}
	for _, n := range nodes() {
		if n.name == name {
			return s, n, nil
		}
	}
	return nil, node{}, fmt.Errorf("no real node is called %s", name)
}

// killNode stops the nodes' processes: kube-proxy and the kubelets first
// (nothing restarts a container then), the containers by their cgroups,
// the containerd shims by their address, then containerd and the API
// forwarder. SIGKILL: the nodes' state is disposable, and Down must not
// wait on a stuck hook.
func killNode(s *machineState, l layout) {
	killNodeAgents(s)
	_ = hostproc.KillAndWait(10*time.Second, cgroupProcs(s)...)
	// A 0 among the pids, a part that is not running, is skipped.
	daemons := []int{s.running(forwarderKey, forwarderKey), s.running(ingressKey, ingressKey)}
	for _, n := range nodes() {
		_ = hostproc.KillAndWait(10*time.Second, processesMentioning(n.l.containerdSock())...)
		daemons = append(daemons, s.part(n, PartContainerd))
	}
	_ = hostproc.KillAndWait(10*time.Second, daemons...)
}

// killNodeAgents kills every node's kube-proxy and kubelet.
func killNodeAgents(s *machineState) {
	var victims []int
	for _, n := range nodes() {
		victims = append(victims, s.part(n, PartKubeProxy), s.part(n, PartKubelet))
	}
	_ = hostproc.KillAndWait(10*time.Second, victims...)
}

// cgroupProcs lists the processes in cgroups made since the snapshot: the
// pods' containers.
func cgroupProcs(s *machineState) []int {
	var pids []int
	for h, had := range s.Cgroups {
		for _, n := range names(filepath.Join(cgroupRoot, h)) {
			if slices.Contains(had, n) || !ownCgroup(n) {
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
	s, n, err := runningNode(nodeName)
	if err != nil {
		return nil, err
	}
	out := map[string][]int{}
	for _, part := range []string{PartKubelet, PartKubeProxy, PartContainerd} {
		if pid := s.part(n, part); pid > 0 {
			out[part] = []int{pid}
		}
	}
	if pid := s.running(forwarderKey, forwarderKey); n.index > 0 && pid > 0 {
		out[forwarderKey] = []int{pid}
	}
	for _, pid := range processesMentioning(n.l.containerdSock()) {
		if strings.Contains(cmdline(pid), "containerd-shim") {
			out["shims"] = append(out["shims"], pid)
		}
	}
	return out, nil
}
