// Package e2e gives end-to-end tests the project's local cluster, a fresh
// namespace or node of their own, and the plugin binary run through the real
// kubectl, the way users run it. Every test package shares one cluster per
// checkout; tests isolate themselves by namespace and node, never by cluster.
package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-graceful/kubectl-graceful/internal/localcluster"
)

// Env is a running local cluster as a test sees it.
type Env struct {
	// Kubeconfig is the path of the cluster's kubeconfig file.
	Kubeconfig string
	// RESTConfig is the admin client configuration for the cluster.
	RESTConfig *rest.Config
	// Client is an admin clientset for the cluster.
	Client kubernetes.Interface
}

var (
	envOnce sync.Once
	env     *Env
	envErr  error
)

// Cluster returns the shared local cluster, starting it on first use (the
// very first run on a machine builds the control plane: minutes, with
// progress on the test log). It fails the test when the cluster cannot start.
func Cluster(t testing.TB) *Env {
	t.Helper()
	if testing.Short() {
		t.Skip("e2e test: needs the local cluster (run `make test`, not -short)")
	}
	envOnce.Do(func() { env, envErr = startCluster() })
	if envErr != nil {
		t.Fatalf("local cluster: %v", envErr)
	}
	return env
}

func startCluster() (*Env, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	opts, err := localcluster.DefaultOptions(root, os.Stderr)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	c, err := localcluster.Up(ctx, opts)
	if err != nil {
		return nil, err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		return nil, err
	}
	// Tests create many objects quickly; the default 5 QPS would make them
	// wait on the client, not on Kubernetes.
	cfg.QPS, cfg.Burst = 200, 400
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &Env{Kubeconfig: c.Kubeconfig, RESTConfig: cfg, Client: cs}, nil
}

// RepoRoot returns the folder holding the module's go.mod, found by walking
// up from the test's working directory (its package folder).
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the test's folder")
		}
		dir = parent
	}
}
