package nodewatch_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// TestWatchNodeMermaid: `watch node -o mermaid` follows kubectl drain of a
// node and writes only the gantt chart to stdout, one section per
// terminated pod named by its workload, with the live lines on stderr;
// the naive workload's race still decides the exit status (2).
func TestWatchNodeMermaid(t *testing.T) {
	t.Parallel()
	env := e2e.Cluster(t)
	ns := env.Namespace(t)
	_, nodes := pool(t, env, 1)
	extra, open := spare(t, env)
	served(t, env, ns, "naive", append(nodes, extra), 2, 0)
	open()

	w := env.StartKubectl(t, 3*time.Minute, "graceful", "watch", "node", nodes[0], "-o", "mermaid", "--settle", "1s", "--timeout", "120s")
	w.WaitStderr(t, time.Minute, "capacity")
	if d := env.Kubectl(t, "drain", nodes[0], "--ignore-daemonsets", "--timeout", "100s"); d.ExitCode != 0 {
		t.Fatalf("kubectl drain: exit %d\n%s\n%s", d.ExitCode, d.Stdout, d.Stderr)
	}
	res := w.Wait()
	head := "gantt\n    title Drain of node(s) " + nodes[0] + "\n"
	if res.ExitCode != 2 || !strings.HasPrefix(res.Stdout, head) {
		t.Fatalf("exit %d, want 2 and stdout starting with %q:\n%s\n%s", res.ExitCode, head, res.Stdout, res.Stderr)
	}
	if n := strings.Count(res.Stdout, "    section "+ns+"/Deployment/naive naive-"); n != 2 {
		t.Errorf("%d sections for the naive workload's pods, want 2:\n%s", n, res.Stdout)
	}
	if strings.Contains(res.Stdout, "capacity") || !strings.Contains(res.Stderr, "deletionTimestamp set") {
		t.Errorf("live lines belong on stderr:\nstdout: %s\nstderr: %s", res.Stdout, res.Stderr)
	}
}
