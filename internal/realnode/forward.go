package realnode

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"k8s.io/client-go/tools/clientcmd"
)

// forwardAPI starts the forwarder that lets node n, in its own network
// namespace, reach the API server (it listens on the machine's loopback
// only) on PodGateway:APIForwardPort, and returns the node's kubeconfig:
// the admin one with that server, checked against the serving
// certificate's own address (its IP SANs hold loopback, not PodGateway).
func (st *starter) forwardAPI(n node, adminKubeconfig []byte) ([]byte, error) {
	cfg, err := clientcmd.Load(adminKubeconfig)
	if err != nil {
		return nil, fmt.Errorf("the cluster's kubeconfig: %w", err)
	}
	listen := net.JoinHostPort(PodGateway, strconv.Itoa(APIForwardPort))
	target := ""
	for name, c := range cfg.Clusters {
		u, err := url.Parse(c.Server)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("the kubeconfig's cluster %s: server %q", name, c.Server)
		}
		if target != "" && target != u.Host {
			return nil, fmt.Errorf("the kubeconfig names two API servers, %s and %s", target, u.Host)
		}
		target = u.Host
		c.TLSServerName = u.Hostname()
		c.Server = "https://" + listen
	}
	if target == "" {
		return nil, fmt.Errorf("the cluster's kubeconfig names no API server")
	}
	if _, running := st.s.Pids[forwarderKey]; !running {
		// goBuild leaves the binary in the node's folder, named after
		// the package.
		if _, err := goBuild(st.o.RepoRoot, n.l.root, "./internal/realnode/apiforward"); err != nil {
			return nil, err
		}
		p := filepath.Join(n.l.root, forwarderKey)
		dial := func() error {
			c, err := net.DialTimeout("tcp", listen, time.Second)
			if err == nil {
				c.Close()
			}
			return err
		}
		if err := st.daemon(n.l, forwarderKey, forwarderKey, 10*time.Second, dial, p, listen, target); err != nil {
			return nil, err
		}
	}
	return clientcmd.Write(*cfg)
}

// forwarderKey names the forwarder's pid in the state file and its log.
const forwarderKey = "apiforward"

// makeCgroupParent makes a kubelet's cgroupRoot in every cgroup v1
// hierarchy (the kubelet expects it to exist), with cpuset's CPUs and
// memory nodes copied from the top: a new cpuset starts with none.
func makeCgroupParent(name string) error {
	for _, h := range names(cgroupRoot) {
		top := filepath.Join(cgroupRoot, h)
		if fi, err := os.Lstat(top); err != nil || !fi.IsDir() {
			continue
		}
		dir := filepath.Join(top, name)
		if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
			return fmt.Errorf("cgroup %s: %w", dir, err)
		}
		if h != "cpuset" {
			continue
		}
		for _, f := range []string{"cpuset.cpus", "cpuset.mems"} {
			b, err := os.ReadFile(filepath.Join(top, f))
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
				return fmt.Errorf("cgroup %s: %w", filepath.Join(dir, f), err)
			}
		}
	}
	return nil
}
