package realnode

import (
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// UnavailableError says why this machine cannot run the real node, in one
// line with what would fix it.
type UnavailableError struct{ Reason string }

func (e *UnavailableError) Error() string { return "no real node: " + e.Reason }

// Preflight returns nil when this machine can run the real node, or an
// *UnavailableError naming the first thing missing.
func Preflight() error {
	if runtime.GOOS != "linux" {
		return &UnavailableError{"the real node needs Linux (this is " + runtime.GOOS + ")"}
	}
	if os.Geteuid() != 0 {
		return &UnavailableError{"the real node needs root (it makes interfaces, routes and nftables tables)"}
	}
	for bin, pkg := range map[string]string{"containerd": "containerd", "containerd-shim-runc-v2": "containerd", "ctr": "containerd",
		"runc": "runc", "nft": "nftables", "ip": "iproute2", "iptables": "iptables", "conntrack": "conntrack",
		"nsenter": "util-linux", "unshare": "util-linux"} {
		if _, err := lookPath(bin); err != nil {
			return &UnavailableError{fmt.Sprintf("%s is not installed (Debian package %s: make real-node-deps)", bin, pkg)}
		}
	}
	if _, err := os.Stat(busybox); err != nil {
		return &UnavailableError{busybox + " is missing (Debian package busybox-static: make real-node-deps)"}
	}
	for _, p := range []string{"bridge", "host-local", "loopback"} {
		if _, err := os.Stat(filepath.Join(cniPluginsDir(), p)); err != nil {
			return &UnavailableError{"the CNI plugin " + p + " is missing (Debian package containernetworking-plugins: make real-node-deps)"}
		}
	}
	if out, err := exec.Command("nft", "list", "tables").CombinedOutput(); err != nil {
		return &UnavailableError{"this kernel has no usable nftables (" + firstLine(string(out)) + ")"}
	}
	if b, _ := os.ReadFile("/proc/filesystems"); !strings.Contains(string(b), "overlay") {
		return &UnavailableError{"this kernel has no overlay file system (containerd's snapshotter needs it)"}
	}
	if _, err := os.Stat(filepath.Join(cgroupRoot, "memory")); err != nil {
		// The clean-up knows cgroup v1's hierarchies (kubepods under each);
		// a v2 machine would need its own.
		if _, err := os.Stat(filepath.Join(cgroupRoot, "cgroup.controllers")); err == nil {
			return &UnavailableError{"this machine has cgroup v2, and the real node's clean-up knows only cgroup v1 (docs/real-node.md)"}
		}
		return &UnavailableError{"no cgroup v1 file system at " + cgroupRoot}
	}
	return nil
}

// cniPluginsDir is where Debian's containernetworking-plugins installs.
func cniPluginsDir() string {
	if _, err := os.Stat(filepath.Join(defaultCNIPluginsDir, "bridge")); err == nil {
		return defaultCNIPluginsDir
	}
	return "/opt/cni/bin"
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return cmp.Or(s, "nft failed")
}
