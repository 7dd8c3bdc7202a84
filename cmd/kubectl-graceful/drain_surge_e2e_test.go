package main

import (
	"strings"
	"testing"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// TestDrainSurgeOrderBadInput: through kubectl, --surge with
// --disable-eviction and an unknown --order end in one line and exit 1,
// and the node is left schedulable.
func TestDrainSurgeOrderBadInput(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	node := env.Node(t)
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"surge with disable-eviction": {[]string{"--surge", "--disable-eviction", "--yes-bypass-pdb"}, "--surge"},
		"unknown order":               {[]string{"--order", "priorty"}, `did you mean "priority"?`},
	} {
		t.Run(name, func(t *testing.T) {
			res := env.Kubectl(t, append([]string{"graceful", "drain", "node", node}, tc.args...)...)
			lines := strings.Split(strings.TrimSpace(res.Stderr), "\n")
			if res.ExitCode != 1 || len(lines) != 1 || !strings.HasPrefix(lines[0], "error: ") || !strings.Contains(lines[0], tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 1 and one line mentioning %q", res.ExitCode, res.Stderr, tc.want)
			}
		})
	}
	spec := env.Kubectl(t, "get", "node", node, "-o", "jsonpath={.spec.unschedulable}")
	if spec.ExitCode != 0 || spec.Stdout == "true" {
		t.Errorf("bad input cordoned %s (or it cannot be read: %s)", node, spec.Stderr)
	}
}
