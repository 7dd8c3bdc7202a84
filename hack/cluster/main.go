// Command cluster starts and stops the project's local cluster:
//
//	go run ./hack/cluster up     # idempotent; last line: export KUBECONFIG=...
//	go run ./hack/cluster down   # stops every process it started
//	go run ./hack/cluster route IP  # checks a request to IP stays on the machine, waits until it answers
//	go run ./hack/cluster requests NAME IP T0FILE  # the demo's own request loop (requests.go)
//
// `make cluster-up` and `make cluster-down` call it.
package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/localcluster"
	"github.com/kubectl-graceful/kubectl-graceful/internal/realnode"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 2 && args[0] == "route" {
		return routeAndServed(args[1])
	}
	if len(args) == 4 && args[0] == "requests" {
		return requestLoop(args[1], args[2], args[3])
	}
	if len(args) != 1 {
		return fmt.Errorf("usage: cluster up|down|kubectl-dir|argo-rollouts|ingress|route IP|requests NAME IP T0FILE (run from the repository root)")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts, err := localcluster.DefaultOptions(".", os.Stderr)
	if err != nil {
		return err
	}
	switch args[0] {
	case "kubectl-dir":
		return kubectlDir(opts)
	case "argo-rollouts":
		// Only the tests run it (e2e.Env.ArgoRollouts): make test builds
		// it before they start, so that the --surge test does not build it
		// while it holds the real nodes, and make demo never does.
		_, err := localcluster.EnsureArgoRollouts(opts.CacheDir, os.Stderr)
		return err
	case "ingress":
		// The Ingress controller (docs/ingress.md): built once per
		// machine by make ingress; nothing else builds it.
		_, err := localcluster.EnsureTraefik(opts.CacheDir, os.Stderr)
		return err
	case "down":
		// The siblings: the second cluster tests spanning clusters start
		// (internal/e2e) and the benchmark's fleet clusters, each with its
		// folder under _output/clusters.
		var all []localcluster.ClusterOptions
		entries, _ := os.ReadDir(filepath.Join(opts.OutputDir, "clusters"))
		for _, e := range entries {
			if e.IsDir() {
				all = append(all, opts.Sibling(e.Name()))
			}
		}
		// The real nodes first: they belong to this checkout's cluster.
		if err := realnode.Down(ctx, opts.Name, os.Stderr); err != nil {
			return err
		}
		for _, o := range append(all, opts) {
			if err := localcluster.Down(ctx, o); err != nil {
				return err
			}
			fmt.Printf("Cluster %s stopped.\n", o.Name)
		}
		return nil
	case "up":
	default:
		return fmt.Errorf("unknown command %q: use up, down, kubectl-dir, argo-rollouts or ingress", args[0])
	}
	c, err := localcluster.Up(ctx, opts)
	if err != nil {
		return err
	}
	real := "no real nodes"
	if os.Getenv(noRealNodesVar) == "1" {
		// Another checkout of this machine is to own the real nodes
		// (they are one per machine): say so and keep the kwok nodes.
		fmt.Fprintf(os.Stderr, "note: %s=1: the real nodes are not started; the cluster has the kwok nodes only (docs/real-node.md)\n", noRealNodesVar)
	} else if err := upRealNode(ctx, opts, c); err != nil {
		// CI must test the real kubelet: a machine that cannot run it
		// fails there, and elsewhere says why and keeps the kwok nodes.
		if os.Getenv("CI") == "true" {
			return err
		}
		fmt.Fprintf(os.Stderr, "note: %v; the cluster has the kwok nodes only (docs/real-node.md)\n", err)
	} else {
		real = "real nodes " + realnode.NodeName + ", " + realnode.SecondNodeName
	}
	fmt.Printf("Cluster %s is up with %d Ready kwok nodes and %s.\n", c.Name, opts.Nodes, real)
	fmt.Printf("export KUBECONFIG=%s\n", c.Kubeconfig)
	return nil
}

// routeAndServed is the demo's check before its first request to the real
// node: the route to ip stays on the machine, then GET http://ip/ answers
// (kube-proxy programs a new Service's rules a sync after its endpoints;
// at most 30 requests over 15 s).
func routeAndServed(ip string) error {
	if err := realnode.CheckRoute(ip); err != nil {
		return err
	}
	c := http.Client{Timeout: 500 * time.Millisecond}
	var last error
	for i := 0; i < 30; i++ {
		resp, err := c.Get("http://" + ip + "/")
		if err == nil {
			resp.Body.Close()
			fmt.Printf("route to %s checked: it stays on this machine (guard table in place), and it answers\n", ip)
			return nil
		}
		last = err
		time.Sleep(500 * time.Millisecond)
	}
	return fmt.Errorf("%s stays on this machine but did not answer within 15 s: %v", ip, last)
}

// noRealNodesVar, set to 1, keeps make cluster-up from starting the real
// nodes, for a second checkout on a machine whose real nodes another
// checkout's cluster is to own.
const noRealNodesVar = "GRACEFUL_NO_REAL_NODES"

// upRealNode builds the kubelet and kube-proxy when missing and starts the
// real nodes (internal/realnode), or keeps the healthy ones of this
// cluster.
func upRealNode(ctx context.Context, opts localcluster.ClusterOptions, c *localcluster.Cluster) error {
	if err := realnode.Preflight(); err != nil {
		return err
	}
	bins, err := localcluster.EnsureNodeBinaries(opts.CacheDir, os.Stderr)
	if err != nil {
		return err
	}
	root, err := filepath.Abs(".")
	if err != nil {
		return err
	}
	traefik := localcluster.BuiltTraefik(opts.CacheDir)
	if traefik == "" {
		fmt.Fprintln(os.Stderr, "note: no Ingress controller: make ingress builds Traefik once (about 12 min); cluster-up then starts it (docs/ingress.md)")
	}
	return realnode.Up(ctx, realnode.Options{RepoRoot: root, Cluster: c.Name, Kubeconfig: c.Kubeconfig,
		Kubelet: bins["kubelet"], KubeProxy: bins["kube-proxy"], Traefik: traefik, Log: os.Stderr})
}

// kubectlDir builds kubectl into the cache (for machines without one) and
// prints a folder holding it as "kubectl", for PATH.
func kubectlDir(opts localcluster.ClusterOptions) error {
	path, err := localcluster.EnsureKubectl(opts.CacheDir, os.Stderr)
	if err != nil {
		return err
	}
	dir := filepath.Join(opts.CacheDir, "kubectl-bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	link := filepath.Join(dir, "kubectl")
	_ = os.Remove(link)
	if err := os.Symlink(path, link); err != nil {
		return err
	}
	fmt.Println(dir)
	return nil
}
