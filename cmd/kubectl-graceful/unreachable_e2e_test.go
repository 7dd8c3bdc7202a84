package main

import (
	"strings"
	"testing"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// Every command says an unreachable cluster in the same one line, naming
// the server and the transport's cause: README's exit status 1 promises
// "the same line from every command". A type that looks unknown because
// discovery got no answer is the cluster's fault, not the type's.
func TestEveryCommandSaysAnUnreachableClusterTheSameWay(t *testing.T) {
	e2e.Require(t, "runs the plugin through kubectl")
	t.Parallel()
	const server = "https://127.0.0.1:1"
	want := "error: cannot reach the cluster at server " + server + ": "
	for _, args := range [][]string{
		{"audit", "-A"},
		{"uncordon", "n1"},
		{"watch", "pod", "web"},
		{"watch", "deployment/web"},
		{"watch", "node", "n1"},
		// The drain rides out an API server that is down for 30 s first.
		{"drain", "node", "n1", "--dry-run=client"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			args = append([]string{"graceful"}, args...)
			res := e2e.RunKubectlFor(t, 2*time.Minute, []string{"KUBECONFIG=/dev/null"},
				append(args, "--server", server, "--insecure-skip-tls-verify")...)
			lines := strings.Split(strings.TrimSpace(res.Stderr), "\n")
			if res.ExitCode != 1 || len(lines) != 1 || !strings.HasPrefix(lines[0], want) ||
				!strings.HasSuffix(lines[0], "connect: connection refused") || strings.Contains(lines[0], "unknown resource type") {
				t.Errorf("exit %d, stderr %q: want exit 1 and one line %q...connect: connection refused", res.ExitCode, res.Stderr, want)
			}
		})
	}
}
