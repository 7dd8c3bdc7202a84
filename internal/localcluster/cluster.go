package localcluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/hostproc"
)

// ClusterOptions says where the cluster lives. DefaultOptions fills it for a
// checkout of this repository.
type ClusterOptions struct {
	// Name is the kwokctl cluster name; unique per checkout, so that two
	// clones (or CI beside a developer) never share or stop each other's
	// cluster.
	Name string
	// OutputDir is the repository's ignored output folder: the kubeconfig,
	// the stages file and kwokctl's working files go there, never into
	// ~/.kube/config.
	OutputDir string
	// CacheDir holds the built binaries across checkouts and runs.
	CacheDir string
	// Nodes is how many Ready fake nodes to keep (kwok-node-0 ...).
	Nodes int
	// Log receives progress lines.
	Log io.Writer
}

// Cluster is a running local cluster.
type Cluster struct {
	// Name is the kwokctl cluster name.
	Name string
	// Kubeconfig is the path of the cluster's kubeconfig file (an admin
	// client certificate for the local API server).
	Kubeconfig string
}

// DefaultOptions returns the options for the checkout at repoRoot: output in
// repoRoot/_output, binaries in $GRACEFUL_CACHE_DIR or
// ${XDG_CACHE_HOME:-~/.cache}/kubectl-graceful, three nodes.
func DefaultOptions(repoRoot string, log io.Writer) (ClusterOptions, error) {
	abs, err := filepath.Abs(repoRoot)
	if err != nil {
		return ClusterOptions{}, err
	}
	cache := os.Getenv("GRACEFUL_CACHE_DIR")
	if cache == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return ClusterOptions{}, fmt.Errorf("no cache folder: set GRACEFUL_CACHE_DIR: %w", err)
		}
		cache = filepath.Join(base, "kubectl-graceful")
	}
	sum := sha256.Sum256([]byte(abs))
	return ClusterOptions{
		Name:      "graceful-" + hex.EncodeToString(sum[:])[:8],
		OutputDir: filepath.Join(abs, "_output"),
		CacheDir:  cache,
		Nodes:     3,
		Log:       log,
	}, nil
}

// SecondName is the sibling cluster that tests spanning clusters start
// beside the checkout's own; `make cluster-down` stops both.
const SecondName = "second"

// FaultsName is the sibling cluster whose control plane the fault tests
// pause, kill and restart (internal/e2e FaultCluster); `make cluster-down`
// stops it too.
const FaultsName = "faults"

// Sibling returns the options of another cluster of the same checkout,
// called name: its own kwokctl cluster name, output folder (kubeconfig,
// work files, lock) and ports, so that both run side by side (tests of
// commands that span clusters). Down on the returned options stops it.
func (o ClusterOptions) Sibling(name string) ClusterOptions {
	s := o
	s.Name = o.Name + "-" + name
	s.OutputDir = filepath.Join(o.OutputDir, "clusters", name)
	return s
}

// KubeconfigPath is where the cluster's kubeconfig is written.
func (o ClusterOptions) KubeconfigPath() string { return filepath.Join(o.OutputDir, "kubeconfig") }

func (o ClusterOptions) workDir() string { return filepath.Join(o.OutputDir, "kwok") }

// Up starts the cluster, or reuses it when it already answers, and makes
// sure its nodes are Ready. It is safe to call from several processes at
// once: they queue on a lock and all but the first find the cluster up.
// The first call on a machine builds the binaries (see EnsureBinaries).
func Up(ctx context.Context, o ClusterOptions) (*Cluster, error) {
	unlock, err := hostproc.Lock(filepath.Join(o.OutputDir, "cluster.lock"), syscall.LOCK_EX)
	if err != nil {
		return nil, err
	}
	defer unlock()
	c := &Cluster{Name: o.Name, Kubeconfig: o.KubeconfigPath()}
	if err := ready(ctx, c.Kubeconfig); err != nil {
		if err := o.create(ctx); err != nil {
			return nil, err
		}
	} else if err := current(ctx, o, c.Kubeconfig); err != nil {
		fmt.Fprintf(o.Log, "Recreating cluster %s: %v\n", o.Name, err)
		if err := o.create(ctx); err != nil {
			return nil, err
		}
	}
	// Just after a (re)create the API server can answer for a moment with
	// the previous serving certificate or not at all: wait until a fresh
	// client from the new kubeconfig gets /readyz.
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := o.WaitReady(wctx); err != nil {
		return nil, err
	}
	if err := ensureNodes(ctx, c.Kubeconfig, o.Nodes); err != nil {
		return nil, fmt.Errorf("nodes of cluster %s: %w", o.Name, err)
	}
	return c, nil
}

// current returns nil when the running cluster has today's Service range
// and control-plane flags, and every component runs: an API server that
// answers beside a dead controller manager or scheduler (a machine
// restart, a killed session) would leave every pod Pending.
func current(ctx context.Context, o ClusterOptions, kubeconfig string) error {
	if err := patchesCurrent(o); err != nil {
		return err
	}
	if err := o.Running(); err != nil {
		return err
	}
	return serviceCIDRCurrent(ctx, kubeconfig)
}

// create (re)creates the cluster with kwokctl's binary runtime.
func (o ClusterOptions) create(ctx context.Context) error {
	bins, err := EnsureBinaries(o.CacheDir, o.Log)
	if err != nil {
		return err
	}
	// A cluster that exists but does not answer (its processes died with a
	// reboot or a killed session) is removed first; its state is disposable.
	_ = o.kwokctl(ctx, bins, "delete", "cluster", "--name", o.Name, "--kubeconfig", o.KubeconfigPath())
	// kwokctl merges into an existing kubeconfig; a stale one from a failed
	// start would keep the old cluster's CA.
	_ = os.Remove(o.KubeconfigPath())
	stages, err := StagesYAML()
	if err != nil {
		return err
	}
	// Ports are picked and bound while holding a lock shared by every
	// checkout on the machine, so two clusters never race for one port.
	unlock, err := hostproc.Lock(filepath.Join(o.CacheDir, "create.lock"), syscall.LOCK_EX)
	if err != nil {
		return err
	}
	defer unlock()
	conf, err := kwokctlConfig()
	if err != nil {
		return err
	}
	configFile := filepath.Join(o.OutputDir, "kwokctl.yaml")
	if err := os.WriteFile(configFile, []byte(conf+"---\n"+stages), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(o.Log, "Starting cluster %s (Kubernetes %s, kwok %s)...\n", o.Name, KubernetesVersion, KwokVersion)
	start := time.Now()
	err = o.kwokctl(ctx, bins, "create", "cluster",
		"--name", o.Name,
		"--runtime", "binary",
		"--kubeconfig", o.KubeconfigPath(),
		"--kube-apiserver-binary", bins["kube-apiserver"],
		"--kube-controller-manager-binary", bins["kube-controller-manager"],
		"--kube-scheduler-binary", bins["kube-scheduler"],
		"--etcd-binary", bins["etcd"],
		"--kwok-controller-binary", bins["kwok"],
		"--config", configFile,
		"--wait", "2m",
	)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.Log, "Cluster %s up in %s\n", o.Name, time.Since(start).Round(100*time.Millisecond))
	return nil
}

// Down stops every process of the cluster and removes its state. A cluster
// that does not exist is not an error.
func Down(ctx context.Context, o ClusterOptions) error {
	bins := Binaries{"kwokctl": (&builder{cacheDir: o.CacheDir}).path(component{Name: "kwokctl", Version: KwokVersion})}
	if _, err := os.Stat(bins["kwokctl"]); err != nil {
		return nil // never built, so never started
	}
	if err := o.kwokctl(ctx, bins, "delete", "cluster", "--name", o.Name, "--kubeconfig", o.KubeconfigPath()); err != nil {
		return err
	}
	_ = os.Remove(o.KubeconfigPath())
	return nil
}

// kwokctl runs the cached kwokctl with its working folder inside OutputDir.
func (o ClusterOptions) kwokctl(ctx context.Context, bins Binaries, args ...string) error {
	cmd := exec.CommandContext(ctx, bins["kwokctl"], args...)
	// KWOK_KUBE_VERSION tells kwokctl which flags the given binaries take.
	cmd.Env = append(os.Environ(), "KWOK_WORKDIR="+o.workDir(), "KWOK_KUBE_VERSION="+KubernetesVersion)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("kwokctl %s: %w\n%s", strings.Join(args[:2], " "), err, hostproc.Tail(string(out), 20))
	}
	return nil
}
