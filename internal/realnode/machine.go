package realnode

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
)

// machineState is what the machine had before the node started, and what
// the node started: Down undoes exactly the difference and nothing else.
// It is written to the state file before the first change, so that a run
// killed half way is undone by the next Up or Down.
type machineState struct {
	// Owner is the local cluster (kwokctl name) the node joined, and
	// Kubeconfig the file it joined with.
	Owner, Kubeconfig string
	// Sysctls maps a /proc/sys path to its value before: the kubelet sets
	// vm.overcommit_memory, kernel.panic and kernel.panic_on_oops, the
	// bridge plugin net.ipv4.ip_forward.
	Sysctls map[string]string
	// NftTables are "family name" of the tables there were; the node adds
	// its guard, kube-proxy's and iptables-nft's filter, nat and mangle.
	NftTables []string
	// Links are the network interfaces there were.
	Links []string
	// Netns are the names in /run/netns there were (the CRI adds cni-*).
	Netns []string
	// Mounts are the mount points there were.
	Mounts []string
	// Paths maps each folder the node's parts create wherever they are
	// configured (the kubelet's device-plugins and log folders, the shims'
	// /run/containerd) to whether it existed.
	Paths map[string]bool
	// Cgroups maps each cgroup v1 hierarchy to the entries it had at its
	// top (real-node-0's kubelet adds kubepods, Up kubectl-graceful-node1).
	Cgroups map[string][]string
	// Pids of the processes Up started, by name: real-node-0's parts by
	// their own names, the other nodes' prefixed with the node's name
	// (node.pidKey), and the API forwarder.
	Pids map[string]int
}

// sysctlsWatched are the settings the node's parts are known to change.
var sysctlsWatched = []string{
	"vm/overcommit_memory", "vm/panic_on_oom", "kernel/panic", "kernel/panic_on_oops",
	"kernel/keys/root_maxkeys", "kernel/keys/root_maxbytes",
	"net/ipv4/ip_forward", "net/ipv4/conf/all/forwarding", "net/ipv4/conf/all/route_localnet",
	"net/ipv6/conf/all/forwarding", "net/bridge/bridge-nf-call-iptables", "net/bridge/bridge-nf-call-ip6tables",
	"net/netfilter/nf_conntrack_max", "net/netfilter/nf_conntrack_tcp_timeout_established",
	"net/netfilter/nf_conntrack_tcp_timeout_close_wait", "net/netfilter/nf_conntrack_tcp_be_liberal",
}

// pathsWatched are the folders the kubelet, containerd and the CRI create
// whatever their own roots are.
var pathsWatched = []string{
	"/var/lib/kubelet", "/var/log/pods", "/var/log/containers", "/run/containerd",
	"/run/netns", "/var/lib/cni", "/opt/containerd", "/etc/cni", "/opt/cni",
	"/run/mount", // libmount's utab, from the kubelet's mount calls
}

const cgroupRoot = "/sys/fs/cgroup"

// snapshot reads the machine as it is now.
func snapshot(owner, kubeconfig string) (*machineState, error) {
	s := &machineState{Owner: owner, Kubeconfig: kubeconfig, Sysctls: map[string]string{},
		Paths: map[string]bool{}, Cgroups: map[string][]string{}, Pids: map[string]int{}}
	for _, k := range sysctlsWatched {
		if b, err := os.ReadFile(filepath.Join("/proc/sys", k)); err == nil {
			s.Sysctls[k] = strings.TrimSpace(string(b))
		}
	}
	var err error
	if s.NftTables, err = nftTables(); err != nil {
		return nil, err
	}
	s.Links = names("/sys/class/net")
	s.Netns = names("/run/netns")
	s.Mounts = mountPoints()
	for _, p := range pathsWatched {
		_, err := os.Lstat(p)
		s.Paths[p] = err == nil
	}
	for _, h := range names(cgroupRoot) {
		if fi, err := os.Lstat(filepath.Join(cgroupRoot, h)); err == nil && fi.IsDir() {
			s.Cgroups[h] = names(filepath.Join(cgroupRoot, h))
		}
	}
	return s, nil
}

// names lists a folder's entries, none when it is missing.
func names(dir string) []string {
	es, _ := os.ReadDir(dir)
	out := make([]string, 0, len(es))
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// nftTables lists "family name" of every nftables table.
func nftTables() ([]string, error) {
	var doc struct {
		Nftables []struct {
			Table *struct{ Family, Name string } `json:"table"`
		} `json:"nftables"`
	}
	if err := jsonOutput(&doc, "nft", "-j", "list", "tables"); err != nil {
		return nil, err
	}
	var ts []string
	for _, e := range doc.Nftables {
		if e.Table != nil {
			ts = append(ts, e.Table.Family+" "+e.Table.Name)
		}
	}
	return ts, nil
}

// mountPoints lists the mount points in /proc/self/mountinfo (field 5,
// with the kernel's octal escapes undone).
func mountPoints() []string {
	b, _ := os.ReadFile("/proc/self/mountinfo")
	unescape := strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`)
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 4 {
			out = append(out, unescape.Replace(f[4]))
		}
	}
	return out
}

// ownTables are the nftables tables the node's parts make: the guard,
// kube-proxy's, and the iptables-nft tables the kubelet and kube-proxy
// create when they are missing. Another table made meanwhile is left.
var ownTables = []string{"inet " + GuardTable, "ip kube-proxy", "ip6 kube-proxy",
	"ip filter", "ip nat", "ip mangle", "ip6 filter", "ip6 nat", "ip6 mangle"}

// ownMount reports whether a mount point is of the kind the node makes:
// under its own folders (containers' root file systems, volumes, shm) or
// a CRI network namespace.
func ownMount(m string, l layout) bool {
	return slices.ContainsFunc([]string{l.root + "/", l.run + "/", "/run/netns/cni-", "/var/run/netns/cni-", "/run/containerd/"},
		func(p string) bool { return strings.HasPrefix(m, p) })
}

// ownLink reports whether an interface is the nodes': the two bridges, a
// further node's veth (the rest of it goes with its network namespace),
// or a pod's veth (the bridge plugin names them veth...).
func ownLink(name string) bool {
	return name == PodBridge || name == ServiceSink || name == ingressHostVeth || strings.HasPrefix(name, "veth") ||
		slices.ContainsFunc(nodes()[1:], func(n node) bool { return name == n.hostVeth() })
}

// ownCgroup reports whether a top-level cgroup is a kubelet's: real-node-0's
// kubepods (cgroupfs driver), or a further node's cgroupRoot.
func ownCgroup(name string) bool {
	return strings.HasPrefix(name, "kubepods") ||
		slices.ContainsFunc(nodes()[1:], func(n node) bool { return name == n.cgroupParent() })
}

// restore undoes everything the node changed since s was taken, in the
// order that lets each step succeed: processes, mounts, network
// namespaces, interfaces, tables, sysctls, cgroups, folders. It goes on
// past a failing step and returns every failure.
func restore(s *machineState, l layout) error {
	var errs []error
	killNode(s, l)
	errs = append(errs, unmountNew(s, l)...)
	// errors.Join drops the nil errors of the steps that succeeded.
	for _, n := range names("/run/netns") {
		if !slices.Contains(s.Netns, n) && strings.HasPrefix(n, "cni-") {
			errs = append(errs, os.Remove(filepath.Join("/run/netns", n)))
		}
	}
	for _, n := range names("/sys/class/net") {
		if !slices.Contains(s.Links, n) && ownLink(n) {
			if err := run("ip", "link", "delete", n); err != nil && linkExists(n) {
				errs = append(errs, err)
			}
		}
	}
	if ts, err := nftTables(); err == nil {
		for _, t := range ts {
			if !slices.Contains(s.NftTables, t) && slices.Contains(ownTables, t) {
				fam, name, _ := strings.Cut(t, " ")
				errs = append(errs, run("nft", "delete", "table", fam, name))
			}
		}
	} else {
		errs = append(errs, err)
	}
	for k, v := range s.Sysctls {
		p := filepath.Join("/proc/sys", k)
		if b, err := os.ReadFile(p); err == nil && strings.TrimSpace(string(b)) != v {
			if err := os.WriteFile(p, []byte(v+"\n"), 0o644); err != nil {
				errs = append(errs, fmt.Errorf("sysctl %s back to %s: %w", k, v, err))
			}
		}
	}
	for h, had := range s.Cgroups {
		for _, n := range names(filepath.Join(cgroupRoot, h)) {
			p := filepath.Join(cgroupRoot, h, n)
			if fi, err := os.Lstat(p); err == nil && fi.IsDir() && !slices.Contains(had, n) && ownCgroup(n) {
				errs = append(errs, rmdirTree(p))
			}
		}
	}
	for p, existed := range s.Paths {
		if !existed {
			errs = append(errs, os.RemoveAll(p))
		}
	}
	errs = append(errs, os.RemoveAll(l.root))
	// The lock file stays while Up goes on holding it; Down removes it.
	for _, n := range names(l.run) {
		if p := filepath.Join(l.run, n); p != l.lockPath() {
			errs = append(errs, os.RemoveAll(p))
		}
	}
	return errors.Join(errs...)
}

func linkExists(n string) bool {
	_, err := os.Lstat(filepath.Join("/sys/class/net", n))
	return err == nil
}

// unmountNew detaches every mount point made since the snapshot, deepest
// first (container root file systems, the sandboxes' /dev/shm, volumes,
// the CRI's network namespaces).
func unmountNew(s *machineState, l layout) []error {
	fresh := slices.DeleteFunc(mountPoints(), func(m string) bool { return slices.Contains(s.Mounts, m) || !ownMount(m, l) })
	sort.Slice(fresh, func(i, j int) bool { return len(fresh[i]) > len(fresh[j]) })
	var errs []error
	for _, m := range fresh {
		if err := syscall.Unmount(m, syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOENT) {
			errs = append(errs, fmt.Errorf("unmount %s: %w", m, err))
		}
	}
	return errs
}

// rmdirTree removes an empty cgroup folder tree bottom-up (a cgroup's
// files cannot be removed, only its folders once they hold no process).
func rmdirTree(p string) error {
	for _, n := range names(p) {
		c := filepath.Join(p, n)
		if fi, err := os.Lstat(c); err == nil && fi.IsDir() {
			if err := rmdirTree(c); err != nil {
				return err
			}
		}
	}
	if err := syscall.Rmdir(p); err != nil && !errors.Is(err, syscall.ENOENT) {
		return fmt.Errorf("remove cgroup %s: %w", p, err)
	}
	return nil
}

// run runs one command, its output in its error (runAll).
func run(cmd ...string) error { return runAll([][]string{cmd}, "") }

// jsonOutput runs a command that prints JSON and reads its output into
// v; an error names the command and carries its stderr.
func jsonOutput(v any, cmd ...string) error {
	out, err := exec.Command(cmd[0], cmd[1:]...).Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		err = fmt.Errorf("%w: %s", err, strings.TrimSpace(string(ee.Stderr)))
	}
	if err == nil {
		err = json.Unmarshal(out, v)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", strings.Join(cmd, " "), err)
	}
	return nil
}
