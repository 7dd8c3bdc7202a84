package realnode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubectl-graceful/kubectl-graceful/internal/hostproc"
	"github.com/kubectl-graceful/kubectl-graceful/internal/localcluster"
)

// Options says which cluster the node joins and with what.
type Options struct {
	// RepoRoot is this checkout: the images are built from its source.
	RepoRoot string
	// Cluster is the local cluster's kwokctl name: the node's owner.
	Cluster string
	// Kubeconfig is the cluster's admin kubeconfig; the kubelet and
	// kube-proxy use a copy of it.
	Kubeconfig string
	// Kubelet and KubeProxy are the binaries (localcluster's build).
	Kubelet, KubeProxy string
	// Traefik, when set, is the Ingress controller's binary, started
	// beside the nodes (startIngress).
	Traefik string
	// Log receives progress lines.
	Log io.Writer
	// Started, when set, is called as each node is Ready with kube-proxy
	// healthy, with the time since its own start (its containerd; the
	// network of every node is made before the first).
	Started func(node string, took time.Duration)
}

// HeldError is returned by Up when another checkout's cluster runs the
// machine's real node: its ports, routes and folders are machine-wide.
type HeldError struct{ Owner string }

func (e *HeldError) Error() string {
	return fmt.Sprintf("the machine's real nodes belong to cluster %s: one set of real nodes per machine (run `make cluster-down` in that checkout first)", e.Owner)
}

// Up starts the real nodes (nodes) and joins them to the cluster, or keeps
// those that run when they belong to this cluster and are healthy. Real
// nodes left by a killed run are removed first. A failure part way undoes every
// change before it returns, so the machine is never left half configured.
// Errors: *UnavailableError when the machine cannot run a node (one line,
// with the reason); *HeldError when another cluster has it.
func Up(ctx context.Context, o Options) error {
	if err := Preflight(); err != nil {
		return err
	}
	l := defaultLayout()
	if err := os.MkdirAll(l.run, 0o755); err != nil {
		return err
	}
	lock, err := os.OpenFile(l.lockPath(), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		s, _ := readState(l)
		if s == nil || s.Owner != o.Cluster {
			owner := "(unknown)"
			if s != nil {
				owner = s.Owner
			}
			return &HeldError{Owner: owner}
		}
		why := healthy(ctx, o.Kubeconfig)
		if why == nil {
			fmt.Fprintf(o.Log, "Real nodes %s are up (reused).\n", nodeNames())
			return startIngressLate(ctx, o, l, lock, s)
		}
		fmt.Fprintf(o.Log, "Restarting real nodes %s: %v\n", nodeNames(), why)
		if err := restore(s, l); err != nil {
			return fmt.Errorf("removing the unhealthy real node: %w", err)
		}
		_ = os.Remove(l.statePath())
		if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			return fmt.Errorf("the real node's lock is still held after stopping it: %w", err)
		}
	} else if s, err := readState(l); err != nil {
		return err
	} else if s != nil {
		fmt.Fprintf(o.Log, "Removing real nodes left by a killed run (cluster %s).\n", s.Owner)
		if err := restore(s, l); err != nil {
			return fmt.Errorf("removing the real node left by a killed run: %w", err)
		}
		_ = os.Remove(l.statePath())
	}
	start := time.Now()
	s, err := snapshot(o.Cluster, o.Kubeconfig)
	if err != nil {
		return err
	}
	if err := writeState(l, s); err != nil {
		return err
	}
	if err := startNode(ctx, o, l, lock, s); err != nil {
		if rerr := restore(s, l); rerr != nil {
			// The state file stays: the next Up or Down undoes the rest.
			return fmt.Errorf("%w (and undoing it: %v; the state is kept in %s for the next make cluster-up or cluster-down)", err, rerr, l.statePath())
		}
		_ = os.Remove(l.statePath())
		return err
	}
	fmt.Fprintf(o.Log, "Real nodes %s Ready with kube-proxy (nftables) in %s.\n", nodeNames(), time.Since(start).Round(100*time.Millisecond))
	return nil
}

// startNode does the changes, recording each process in the state file:
// the network of every node, then each node in turn.
func startNode(ctx context.Context, o Options, l layout, lock *os.File, s *machineState) error {
	all := nodes()
	if err := setUpNetwork(all[1:]); err != nil {
		return err
	}
	kc, err := os.ReadFile(o.Kubeconfig)
	if err != nil {
		return err
	}
	st := starter{ctx: ctx, o: o, lock: lock, s: s, state: l}
	for _, n := range all {
		if err := st.start(n, kc); err != nil {
			return fmt.Errorf("%s: %w", n.name, err)
		}
	}
	if o.Traefik != "" {
		if err := st.startIngress(o.Traefik); err != nil {
			return fmt.Errorf("the Ingress controller: %w", err)
		}
	}
	return nil
}

// starter starts one node's parts, recording their pids in the state file.
type starter struct {
	ctx    context.Context
	o      Options
	lock   *os.File
	s      *machineState
	state  layout // where the state file is
	images []string
}

// start writes the node's files, starts its containerd, imports the images,
// then starts its kubelet and kube-proxy, each once the one before is up.
// Nodes after the first reach the API server through the forwarder and
// reuse the first node's image archives.
func (st *starter) start(n node, adminKubeconfig []byte) error {
	begin, l := time.Now(), n.l
	for _, d := range []string{l.root, l.cniConfDir(), l.imagesDir(), l.kubeletRoot()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	kc := adminKubeconfig
	if n.index > 0 {
		var err error
		if kc, err = st.forwardAPI(n, adminKubeconfig); err != nil {
			return err
		}
		if err := makeCgroupParent(n.cgroupParent()); err != nil {
			return err
		}
	}
	files := map[string]string{
		l.kubeconfig(): string(kc), l.containerdConf(): containerdConfig(l, cniPluginsDir()),
		filepath.Join(l.cniConfDir(), "10-kubectl-graceful.conflist"): cniConfig(n),
		l.kubeletConf(): kubeletConfig(n), l.proxyConf(): proxyConfig(n),
	}
	for p, c := range files {
		if err := os.WriteFile(p, []byte(c), 0o600); err != nil {
			return err
		}
	}
	if err := st.nodeDaemon(n, "containerd", 30*time.Second, func() error { return ctrRun(l, "version") },
		"containerd", "--config", l.containerdConf()); err != nil {
		return err
	}
	if err := st.importImages(l); err != nil {
		return err
	}
	if err := st.nodeDaemon(n, "kubelet", 90*time.Second, func() error { return nodeReady(st.ctx, st.o.Kubeconfig, n.name) }, st.o.Kubelet,
		"--config="+l.kubeletConf(), "--kubeconfig="+l.kubeconfig(), "--root-dir="+l.kubeletRoot(),
		"--hostname-override="+n.name, "--node-ip="+n.gateway(),
		"--node-labels="+NodeLabelKey+"="+NodeLabelVal, "--v=1"); err != nil {
		return err
	}
	if err := st.nodeDaemon(n, "kube-proxy", 60*time.Second, func() error { return httpOK(n.healthAddr(), ProxyHealthzPort) },
		st.o.KubeProxy, "--config="+l.proxyConf(), "--v=1"); err != nil {
		return err
	}
	if st.o.Started != nil {
		st.o.Started(n.name, time.Since(begin))
	}
	return nil
}

// nodeDaemon starts one part of node n in the node's network namespace
// and waits up to limit for check to pass.
func (st *starter) nodeDaemon(n node, part string, limit time.Duration, check func() error, args ...string) error {
	return st.daemon(n.l, n.pidKey(part), part, limit, check, n.command(args)...)
}

// daemon starts a process (args, the binary first) that outlives `make
// cluster-up` and records its pid under key, even when its pid file could
// not be written (Down reads the state file), then waits up to limit for
// check to pass (waitFor). It holds the node's lock file open, so that the
// lock is held as long as any part of the node runs.
func (st *starter) daemon(l layout, key, part string, limit time.Duration, check func() error, args ...string) error {
	pid, err := hostproc.Command{Args: args}.Start(l.log(part), l.pidPath(part), st.lock)
	if pid > 0 {
		st.s.Pids[key] = pid
	}
	if werr := writeState(st.state, st.s); err == nil {
		err = werr
	}
	if err != nil {
		return err
	}
	return waitFor(st.ctx, limit, part, l, check)
}

// waitFor polls check until it passes, naming the part and the end of its
// log when it does not within limit.
func waitFor(ctx context.Context, limit time.Duration, part string, l layout, check func() error) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, limit, true, func(context.Context) (bool, error) {
		last = check()
		return last == nil, nil
	})
	if err != nil {
		return fmt.Errorf("%s did not come up within %s (%v); its log %s ends:\n%s", part, limit, last, l.log(part), logTail(l.log(part), 8))
	}
	return nil
}

// logTail returns the last n lines of the file at path, each indented.
func logTail(path string, n int) string {
	b, _ := os.ReadFile(path)
	if len(b) == 0 {
		return ""
	}
	return "  " + strings.ReplaceAll(hostproc.Tail(string(b), n), "\n", "\n  ") + "\n"
}

// importImages imports the project's images into containerd's k8s.io
// namespace, where the CRI finds them: built and packed the first time,
// the same archives for every further node.
func (st *starter) importImages(l layout) error {
	if st.images == nil {
		imgs, err := buildImages(st.o.RepoRoot, l.imagesDir())
		if err != nil {
			return err
		}
		for i, img := range imgs {
			var b bytes.Buffer
			p := filepath.Join(l.imagesDir(), strconv.Itoa(i)+".tar")
			if err := writeArchive(&b, img); err != nil {
				return err
			}
			if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
				return err
			}
			st.images = append(st.images, p)
		}
	}
	for _, p := range st.images {
		if err := ctrRun(l, "images", "import", p); err != nil {
			return fmt.Errorf("importing %s: %w", p, err)
		}
	}
	return nil
}

func ctrRun(l layout, args ...string) error {
	return run(append([]string{"ctr", "--address", l.containerdSock(), "-n", "k8s.io"}, args...)...)
}

func httpOK(host string, port int) error {
	return getOK(fmt.Sprintf("http://%s:%d/healthz", host, port))
}

// getOK returns nil when GET url answers 200 OK within 2 s.
func getOK(url string) error {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s", url, resp.Status)
	}
	return nil
}

// nodeReady returns nil when the cluster has the node and it is Ready.
func nodeReady(ctx context.Context, kubeconfig, name string) error {
	cs, err := localcluster.Client(kubeconfig)
	if err != nil {
		return err
	}
	return localcluster.NodeReady(ctx, cs, name)
}

// healthy returns nil when every part of every node answers and the
// cluster behind kubeconfig (it may have been recreated since) has them
// Ready.
func healthy(ctx context.Context, kubeconfig string) error {
	l := defaultLayout()
	if kc, err := os.ReadFile(kubeconfig); err != nil {
		return err
	} else if old, err := os.ReadFile(l.kubeconfig()); err != nil || string(old) != string(kc) {
		return errors.New("the cluster was recreated since the nodes joined it")
	}
	for _, n := range nodes() {
		if err := httpOK(n.healthAddr(), KubeletHealthzPort); err != nil {
			return fmt.Errorf("%s's kubelet: %w", n.name, err)
		}
		if err := httpOK(n.healthAddr(), ProxyHealthzPort); err != nil {
			return fmt.Errorf("%s's kube-proxy: %w", n.name, err)
		}
		if err := nodeReady(ctx, kubeconfig, n.name); err != nil {
			return err
		}
	}
	return nil
}

// nodeNames lists the real nodes' names for messages.
func nodeNames() string {
	var out []string
	for _, n := range nodes() {
		out = append(out, n.name)
	}
	return strings.Join(out, ", ")
}

// Down stops the real nodes of cluster and undoes every change they made
// to the machine. Nothing to stop is not an error; nodes that belong to
// another cluster are left alone and said so. The kubelets and kube-proxies
// go before their Node objects: kube-proxy exits when its Node is deleted,
// and a kubelet would register it again.
func Down(ctx context.Context, cluster string, log io.Writer) error {
	l := defaultLayout()
	s, err := readState(l)
	if err != nil || s == nil {
		return err
	}
	if s.Owner != cluster {
		fmt.Fprintf(log, "Real nodes %s belong to cluster %s: left running.\n", nodeNames(), s.Owner)
		return nil
	}
	killNodeAgents(s)
	if cs, err := localcluster.Client(s.Kubeconfig); err == nil {
		for _, n := range nodes() {
			dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			if err := cs.CoreV1().Nodes().Delete(dctx, n.name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				fmt.Fprintf(log, "Node object %s not deleted (%v); the cluster goes down with it.\n", n.name, err)
			}
			cancel()
		}
	}
	if err := restore(s, l); err != nil {
		return fmt.Errorf("stopping the real nodes: %w", err)
	}
	_ = os.RemoveAll(l.run)
	fmt.Fprintf(log, "Real nodes %s stopped; the machine is as it was.\n", nodeNames())
	return nil
}

func readState(l layout) (*machineState, error) {
	b, err := os.ReadFile(l.statePath())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s machineState
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("the real node's state file %s: %w", l.statePath(), err)
	}
	return &s, nil
}

func writeState(l layout, s *machineState) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	tmp := l.statePath() + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, l.statePath())
}

// lookPath is exec.LookPath, a variable for the preflight's tests.
var lookPath = exec.LookPath
