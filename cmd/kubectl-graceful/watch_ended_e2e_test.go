package main

import (
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// TestWatchTimeoutBeforeFirstReadE2E: a --timeout that ends before a
// watch's first read answered is said as such, one line and exit 1,
// not as a cluster that did not answer ("the API server stalled") or the
// client's "context deadline exceeded".
func TestWatchTimeoutBeforeFirstReadE2E(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	ns := env.Namespace(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"watch", "pod", "web-0", "-n", ns}, "error: --timeout 1ns reached before reading pod " + ns + "/web-0: nothing was sent"},
		{[]string{"watch", "deployment/web", "-n", ns}, "error: --timeout 1ns reached before reading deployment/web in namespace " + ns + ": nothing was sent"},
		{[]string{"watch", "node", "n1"}, "error: --timeout 1ns reached before reading the nodes: nothing was sent"},
	} {
		res := env.Kubectl(t, append(append([]string{"graceful"}, c.args...), "--timeout", "1ns")...)
		if res.ExitCode != 1 || strings.TrimSpace(res.Stderr) != c.want || res.Stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 1 and %q", c.args, res.ExitCode, res.Stderr, res.Stdout, c.want)
		}
	}
}
