package main

import (
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// TestDrainBareDryRunLive: through kubectl, a bare --dry-run on a real
// node prints the warning line first on stderr, then does what
// --dry-run=client does: the preflight, and the node is left schedulable.
func TestDrainBareDryRunLive(t *testing.T) {
	env := e2e.Cluster(t)
	node := env.Node(t)
	res := env.Kubectl(t, "graceful", "drain", "node", node, "--ignore-daemonsets", "--dry-run")
	if res.ExitCode != 0 || res.Stderr != bareDryRunWarning+"\n" || !strings.Contains(res.Stdout, "Verdict: would succeed") {
		t.Errorf("exit %d, stderr %q, stdout:\n%s\nwant exit 0, the one warning line and the preflight's verdict", res.ExitCode, res.Stderr, res.Stdout)
	}
	spec := env.Kubectl(t, "get", "node", node, "-o", "jsonpath={.spec.unschedulable}")
	if spec.ExitCode != 0 || spec.Stdout == "true" {
		t.Errorf("the bare --dry-run cordoned %s (or the node cannot be read: %s)", node, spec.Stderr)
	}
}
