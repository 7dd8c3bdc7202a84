package localcluster_test

import (
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
	"github.com/kubectl-graceful/kubectl-graceful/internal/localcluster"
)

// The API server is built from the module proxy, which leaves its version
// as "v0.0.0-master+$Format:%H$" unless the build stamps it; version-gated
// audit advice depends on the real one.
func TestServerReportsStampedVersion(t *testing.T) {
	env := e2e.Cluster(t)
	v, err := env.Client.Discovery().ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	if v.GitVersion != localcluster.KubernetesVersion || v.Major != "1" || v.Minor != "37" {
		t.Errorf("server version %s (major %q minor %q), want %s", v.GitVersion, v.Major, v.Minor, localcluster.KubernetesVersion)
	}
	res := env.Kubectl(t, "version", "-o", "json")
	if res.ExitCode != 0 {
		t.Fatalf("kubectl version exit %d: %s", res.ExitCode, res.Stderr)
	}
}

func TestThreeReadyNodes(t *testing.T) {
	env := e2e.Cluster(t)
	res := env.Kubectl(t, "get", "nodes", "kwok-node-0", "kwok-node-1", "kwok-node-2", "--no-headers")
	if res.ExitCode != 0 {
		t.Fatalf("kubectl get nodes: %s", res.Stderr)
	}
	for _, line := range splitLines(res.Stdout) {
		if !containsWord(line, "Ready") {
			t.Errorf("node not Ready: %s", line)
		}
	}
}
