package drain_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/kubectl-graceful/kubectl-graceful/internal/e2e"
)

// BenchmarkDrainVsKubectlDrain is the drain's performance target: a node with
// 60 pods under 12 PDBs (5 replicas each, maxUnavailable 1, room on another
// node) drained by `kubectl graceful drain node` against an identical node
// drained by `kubectl drain`, in the same run. It reports both durations in
// seconds per drain (graceful-s/op, kubectl-drain-s/op); the timed part is
// ours. Pods exit 1 s after their eviction, so the PDB waits dominate.
//
//	go test -run '^$' -bench DrainVsKubectlDrain -benchtime 1x ./pkg/drain/
func BenchmarkDrainVsKubectlDrain(b *testing.B) {
	var ours, theirs time.Duration
	for range b.N {
		b.StopTimer()
		f := newFixture(b)
		x := f.benchNode("x")
		y := f.benchNode("y")
		b.StartTimer()
		start := time.Now()
		f.kubectlLong("graceful", "drain", "node", x, "--timeout", "5m")
		ours += time.Since(start)
		b.StopTimer()
		start = time.Now()
		f.kubectlLong("drain", y, "--timeout", "5m")
		theirs += time.Since(start)
	}
	b.ReportMetric(ours.Seconds()/float64(b.N), "graceful-s/op")
	b.ReportMetric(theirs.Seconds()/float64(b.N), "kubectl-drain-s/op")
}

// benchNode makes a node holding 12 Deployments of 5 pods, each under a
// PDB with maxUnavailable 1, with an empty node of the same pool beside it.
func (f *fixture) benchNode(side string) string {
	f.t.Helper()
	node, room := f.env.Node(f.t), f.env.Node(f.t)
	sel := f.pool(node, room)
	f.cordon(room, true)
	for i := range 12 {
		app := fmt.Sprintf("%s-app-%d", side, i)
		f.deploy(app, app, 5, sel, nil)
		f.pdb(app, app, nil, ptr.To(intstr.FromInt32(1)), nil, 5)
	}
	f.cordon(room, false)
	return node
}

// kubectlLong runs the real kubectl with the plugin on PATH, like
// env.Kubectl but allowing 10 minutes (a loaded machine makes a 60-pod
// drain slow), and fails unless it exits 0.
func (f *fixture) kubectlLong(args ...string) {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "kubectl", args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+f.env.Kubeconfig,
		"PATH="+filepath.Dir(e2e.Binary(f.t))+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out, err := cmd.CombinedOutput(); err != nil {
		f.t.Fatalf("kubectl %v: %v\n%s", args, err, out)
	}
}
