package drain_test

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// BenchmarkDrainVsKubectlDrain is issue 5's performance target: a node with
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
		res := f.drain(x, "--timeout", "5m")
		ours += time.Since(start)
		b.StopTimer()
		if res.ExitCode != 0 {
			b.Fatalf("kubectl graceful drain: exit %d\n%s", res.ExitCode, res.Stderr)
		}
		start = time.Now()
		kres := f.env.Kubectl(b, "drain", y, "--timeout", "5m")
		theirs += time.Since(start)
		if kres.ExitCode != 0 {
			b.Fatalf("kubectl drain: exit %d\n%s", kres.ExitCode, kres.Stderr)
		}
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
