package realnode

import (
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
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

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
	// Log receives progress lines.
	Log io.Writer
}

// HeldError is returned by Up when another checkout's cluster runs the
// machine's real node: its ports, routes and folders are machine-wide.
type HeldError struct{ Owner string }

func (e *HeldError) Error() string {
	return fmt.Sprintf("the machine's real node belongs to cluster %s: one real node per machine (run `make cluster-down` in that checkout first)", e.Owner)
}

// Up starts the real node and joins it to the cluster, or keeps the one
// that runs when it belongs to this cluster and is healthy. A real node
// left by a killed run is removed first. A failure part way undoes every
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
		if healthy(ctx, o.Kubeconfig) == nil {
			fmt.Fprintf(o.Log, "Real node %s is up (reused).\n", NodeName)
			return nil
		}
		fmt.Fprintf(o.Log, "Restarting real node %s: %v\n", NodeName, healthy(ctx, o.Kubeconfig))
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
		fmt.Fprintf(o.Log, "Removing a real node left by a killed run (cluster %s).\n", s.Owner)
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
	fmt.Fprintf(o.Log, "Real node %s Ready with kube-proxy (nftables) in %s.\n", NodeName, time.Since(start).Round(100*time.Millisecond))
	return nil
}

// startNode does the changes, recording each process in the state file.
func startNode(ctx context.Context, o Options, l layout, lock *os.File, s *machineState) error {
	for _, d := range []string{l.root, l.cniConfDir(), l.imagesDir(), l.kubeletRoot()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := setUpNetwork(); err != nil {
		return err
	}
	kc, err := os.ReadFile(o.Kubeconfig)
	if err != nil {
		return err
	}
	files := map[string]string{
		l.kubeconfig(): string(kc), l.containerdConf(): containerdConfig(l, cniPluginsDir()),
		filepath.Join(l.cniConfDir(), "10-kubectl-graceful.conflist"): cniConfig(l),
		l.kubeletConf(): kubeletConfig(l), l.proxyConf(): proxyConfig(l),
	}
	for p, c := range files {
		if err := os.WriteFile(p, []byte(c), 0o600); err != nil {
			return err
		}
	}
	started := func(name string, pid int, err error) error {
		if pid > 0 {
			s.Pids[name] = pid // recorded even if its pid file failed
		}
		if err != nil {
			_ = writeState(l, s)
			return err
		}
		return writeState(l, s)
	}
	pid, err := startDaemon(l, lock, "containerd", "containerd", "--config", l.containerdConf())
	if err := started("containerd", pid, err); err != nil {
		return err
	}
	if err := waitFor(ctx, 30*time.Second, "containerd", l, func() error { return ctrRun(l, "version") }); err != nil {
		return err
	}
	if err := importImages(o, l); err != nil {
		return err
	}
	pid, err = startDaemon(l, lock, "kubelet", o.Kubelet,
		"--config="+l.kubeletConf(), "--kubeconfig="+l.kubeconfig(), "--root-dir="+l.kubeletRoot(),
		"--hostname-override="+NodeName, "--node-ip="+PodGateway,
		"--node-labels="+NodeLabelKey+"="+NodeLabelVal, "--v=1")
	if err := started("kubelet", pid, err); err != nil {
		return err
	}
	if err := waitFor(ctx, 90*time.Second, "kubelet", l, func() error { return nodeReady(ctx, o.Kubeconfig) }); err != nil {
		return err
	}
	pid, err = startDaemon(l, lock, "kube-proxy", o.KubeProxy, "--config="+l.proxyConf(), "--v=1")
	if err := started("kube-proxy", pid, err); err != nil {
		return err
	}
	return waitFor(ctx, 60*time.Second, "kube-proxy", l, func() error { return httpOK(ProxyHealthzPort) })
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

func logTail(path string, n int) string {
	b, _ := os.ReadFile(path)
	lines := splitLines(string(b))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	out := ""
	for _, s := range lines {
		out += "  " + s + "\n"
	}
	return out
}

func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		out = append(out, s[:i])
		if i == len(s) {
			break
		}
		s = s[i+1:]
	}
	return out
}

// importImages builds the project's images and imports them into
// containerd's k8s.io namespace, where the CRI finds them.
func importImages(o Options, l layout) error {
	imgs, err := buildImages(o.RepoRoot, l.imagesDir())
	if err != nil {
		return err
	}
	for i, img := range imgs {
		p := filepath.Join(l.imagesDir(), strconv.Itoa(i)+".tar")
		f, err := os.Create(p)
		if err != nil {
			return err
		}
		err = writeArchive(f, img)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		if err := ctrRun(l, "images", "import", p); err != nil {
			return fmt.Errorf("importing %s: %w", img.name, err)
		}
	}
	return nil
}

func ctrRun(l layout, args ...string) error {
	return run("ctr", append([]string{"--address", l.containerdSock(), "-n", "k8s.io"}, args...)...)
}

func httpOK(port int) error {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(fmt.Sprintf("http://127.0.0.1:%d/healthz", port))
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthz answered %s", resp.Status)
	}
	return nil
}

// nodeReady returns nil when the cluster has the node and it is Ready.
func nodeReady(ctx context.Context, kubeconfig string) error {
	cs, err := localcluster.Client(kubeconfig)
	if err != nil {
		return err
	}
	return localcluster.NodeReady(ctx, cs, NodeName)
}

// healthy returns nil when every part of the node answers and the cluster
// behind kubeconfig (it may have been recreated since) has it Ready.
func healthy(ctx context.Context, kubeconfig string) error {
	if err := httpOK(KubeletHealthzPort); err != nil {
		return fmt.Errorf("kubelet: %w", err)
	}
	if err := httpOK(ProxyHealthzPort); err != nil {
		return fmt.Errorf("kube-proxy: %w", err)
	}
	l := defaultLayout()
	if kc, err := os.ReadFile(kubeconfig); err != nil {
		return err
	} else if old, err := os.ReadFile(l.kubeconfig()); err != nil || string(old) != string(kc) {
		return errors.New("the cluster was recreated since the node joined it")
	}
	return nodeReady(ctx, kubeconfig)
}

// Down stops the real node of cluster and undoes every change it made to
// the machine. Nothing to stop is not an error; a node that belongs to
// another cluster is left alone and said so.
func Down(ctx context.Context, cluster string, log io.Writer) error {
	l := defaultLayout()
	s, err := readState(l)
	if err != nil || s == nil {
		return err
	}
	if s.Owner != cluster {
		fmt.Fprintf(log, "Real node %s belongs to cluster %s: left running.\n", NodeName, s.Owner)
		return nil
	}
	if cs, err := localcluster.Client(s.Kubeconfig); err == nil {
		dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		if err := cs.CoreV1().Nodes().Delete(dctx, NodeName, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			fmt.Fprintf(log, "Node object %s not deleted (%v); the cluster goes down with it.\n", NodeName, err)
		}
		cancel()
	}
	if err := restore(s, l); err != nil {
		return fmt.Errorf("stopping the real node: %w", err)
	}
	_ = os.RemoveAll(l.run)
	fmt.Fprintf(log, "Real node %s stopped; the machine is as it was.\n", NodeName)
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
