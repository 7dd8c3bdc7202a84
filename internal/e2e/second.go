package e2e

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/localcluster"
)

// SecondClusterName names the second local cluster (localcluster's
// Options.Sibling) that tests spanning clusters start beside the shared
// one. `make cluster-down` stops it too.
const SecondClusterName = localcluster.SecondName

var second lazyEnv

// SecondCluster returns a second local cluster of the checkout, with its
// own name, ports and kubeconfig, starting it on first use (seconds once
// the control plane is built). It has one node: tests use it to check
// that a command tells clusters apart, not for capacity.
func SecondCluster(t testing.TB) *Env {
	t.Helper()
	Cluster(t) // skips under -short, and builds the binaries once
	env, err := second.get(func() (*Env, error) { return startNamed(SecondClusterName) })
	if err != nil {
		t.Fatalf("second local cluster: %v", err)
	}
	return env
}

// startNamed starts (or reuses) the checkout's cluster, or its sibling
// called sibling when that is not "" (clusterOptions).
func startNamed(sibling string) (*Env, error) {
	opts, err := clusterOptions(sibling)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	if _, err := localcluster.Up(ctx, opts); err != nil {
		return nil, err
	}
	return newEnv(opts)
}

// clusterOptions are the options of the checkout's cluster, or of its
// sibling called sibling, with one node, when that is not "".
func clusterOptions(sibling string) (localcluster.ClusterOptions, error) {
	root, err := RepoRoot()
	if err != nil {
		return localcluster.ClusterOptions{}, err
	}
	opts, err := localcluster.DefaultOptions(root, os.Stderr)
	if err != nil || sibling == "" {
		return opts, err
	}
	opts = opts.Sibling(sibling)
	opts.Nodes = 1
	return opts, nil
}
