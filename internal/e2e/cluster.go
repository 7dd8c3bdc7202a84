// Package e2e gives end-to-end tests the project's local cluster, a fresh
// namespace or node of their own, and the plugin binary run through the real
// kubectl, the way users run it. Every test package shares one cluster per
// checkout; tests isolate themselves by namespace and node, never by cluster.
package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

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

	// opts is how the cluster was started, for naming a component that
	// is not running (missingComponents).
	opts localcluster.ClusterOptions
}

// lazyEnv is a cluster started on first use, once per test process.
type lazyEnv struct {
	once sync.Once
	env  *Env
	err  error
	// up is the cluster once it has started, read without waiting on once.
	up atomic.Pointer[Env]
}

func (l *lazyEnv) get(start func() (*Env, error)) (*Env, error) {
	l.once.Do(func() {
		if l.env, l.err = start(); l.err == nil {
			l.up.Store(l.env)
		}
	})
	return l.env, l.err
}

var shared lazyEnv

// missingComponents names, for the failure of a setup wait, each cluster of
// this test process whose control plane lacks a running component (a dead
// kube-scheduler leaves every pod Pending, a dead kube-controller-manager
// creates none): a wait that can never succeed says why. It is "" when
// every component runs.
func missingComponents() string {
	var b strings.Builder
	for _, l := range []*lazyEnv{&shared, &second, &faults} {
		env := l.up.Load()
		if env == nil {
			continue
		}
		if err := env.opts.Running(); err != nil {
			fmt.Fprintf(&b, "; cluster %s: %v", env.opts.Name, err)
		}
	}
	return b.String()
}

// EnvVar, set to 1, asks for the end-to-end tests: `make test` sets it. A
// plain `go test ./...` runs the unit tests alone, without a cluster.
const EnvVar = "GRACEFUL_E2E"

// Require skips an end-to-end test, saying why it needs to be asked for,
// unless EnvVar is 1 (and not under -short).
func Require(t testing.TB, why string) {
	t.Helper()
	if os.Getenv(EnvVar) != "1" || testing.Short() {
		t.Skipf("e2e test (%s): runs with %s=1, as `make test` sets it", why, EnvVar)
	}
}

// Cluster returns the shared local cluster, starting it on first use (the
// very first run on a machine builds the control plane: minutes, with
// progress on the test log). It fails the test when the cluster cannot start.
func Cluster(t testing.TB) *Env {
	t.Helper()
	Require(t, "needs the local cluster")
	env, err := shared.get(func() (*Env, error) { return startNamed("") })
	if err != nil {
		t.Fatalf("local cluster: %v", err)
	}
	return env
}

// newEnv connects to the cluster of o.
func newEnv(o localcluster.ClusterOptions) (*Env, error) {
	kubeconfig := o.KubeconfigPath()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
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
	return &Env{Kubeconfig: kubeconfig, RESTConfig: cfg, Client: cs, opts: o}, nil
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
