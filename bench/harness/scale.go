package harness

import (
	"fmt"
	"time"

	"github.com/kubectl-graceful/kubectl-graceful/bench/fixture"
)

// Scale is how big and how many times each benchmark runs.
type Scale struct {
	// Name is default, small, tiny or large (BENCH_SCALE).
	Name    string
	Fixture fixture.Spec
	// AuditRuns is how many timed runs of ours and of the floor (alternating),
	// after one untimed warm-up of each.
	AuditRuns int
	// ManifestDocs is how many documents the manifest audit reads.
	ManifestDocs int
	// DrainPods pods under DrainPDBs PDBs on each of the two drained nodes;
	// DrainRuns pairs of drains; each pod exits DrainExitAfter after its
	// eviction.
	DrainPods, DrainPDBs, DrainRuns int
	DrainExitAfter                  time.Duration
	// Pool is the node pool drained as a whole, PoolConcurrentNodes nodes
	// at a time (--max-concurrent-nodes); PoolCalibrations waves time the
	// cluster for its ideal.
	Pool                                  fixture.PoolSpec
	PoolConcurrentNodes, PoolCalibrations int
	// WatchPool is the pool `drain node --watch` is measured on (issue
	// 23), WatchPoolConcurrentNodes nodes at a time; a zero pool leaves
	// its rows unmeasured.
	WatchPool                fixture.PoolSpec
	WatchPoolConcurrentNodes int
	// WatchSlices is how many EndpointSlices share the watched pod's
	// namespace; WatchRuns how many pods are watched while they terminate.
	WatchSlices, WatchRuns int
	// RolloutReplicas is the size of the Deployment whose restart `watch
	// deployment/NAME` follows (against a 1-replica one).
	RolloutReplicas int
	// Budget is the wall time the whole run must stay under.
	Budget time.Duration
	// ScalingPods are smaller fixture sizes (pods, ascending) at which the
	// live audit is also measured against the protobuf floor before the
	// fixture is filled to full size: the scaling table.
	ScalingPods []int
	// FleetClusters local clusters (the checkout's and siblings started for
	// the run), each filled to FleetPods pods, are audited with one
	// `audit --contexts` against each alone; fewer than 2 leaves the fleet
	// row unmeasured.
	FleetClusters, FleetPods int
	// SkipKubectlFloor leaves out `kubectl get -o json` (its three rows say
	// so): at 20,000 pods one run takes minutes on 2 cores, and the
	// protobuf floor is the comparison the targets use.
	SkipKubectlFloor bool
	// AuditRSSTarget, in bytes, is the live audit's peak RSS target at
	// this scale; 0 leaves the protobuf floor's RSS row informational.
	AuditRSSTarget int64
}

// pool120 is the node pool of the default and large scales: 6 nodes holding 120
// pods of 20 Deployments under 20 PDBs, 3 spares; pods exit 1 s after
// their deletion, as kwok pods with a short shutdown.
var pool120 = fixture.PoolSpec{Nodes: 6, Spares: 3, Pods: 120, PDBs: 20, ExitAfter: time.Second}

// pool36 is the small scale's node pool, pool120 cut to fit the small
// run's 3 minutes (pool120's rows alone took 64-119 s): 3 nodes holding 36
// pods of 6 Deployments under 6 PDBs, 2 spares, drained 3 at a time.
var pool36 = fixture.PoolSpec{Nodes: 3, Spares: 2, Pods: 36, PDBs: 6, ExitAfter: time.Second}

// watchPool2000 is the `drain --watch` pool of the default and large
// scales: 50 nodes holding 2,000 pods of 200 Deployments of 10
// replicas, at most one per node (the hard spread), each behind a Service
// and under a PDB of maxUnavailable 1, so that each Deployment's pods go
// in ten waves, a replacement Ready before the next; 25 spares take the
// replacements (80 pods each). Pods exit WatchPoolExitAfter after their
// deletion.
var watchPool2000 = fixture.PoolSpec{Nodes: 50, Spares: 25, Pods: 2000, PDBs: 200, ExitAfter: WatchPoolExitAfter, MaxUnavailable: 1, Services: true}

// WatchPoolExitAfter is how long after its deletion each pod of the
// drain --watch pools exits (the termination simulation's
// sim.graceful.test/exit-after), then deleted half a second later: 5 s,
// a hardened workload's preStop sleep (bench/README.md). Real pods take
// their time to terminate, and kubectl drain polls each evicted pod
// every second until it is gone; pods gone in about 1.5 s (the setting
// of the runs recorded before 2026-12-01 19:00 UTC, still available with
// -watch-pool-exit-after=1s) counted few of those polls.
const WatchPoolExitAfter = 5 * time.Second

// watchPool20 is the small scale's `drain --watch` pool, cut to fit the
// small run's 3 minutes (5 nodes of 50 pods took 95 s on a shared
// machine): 2 nodes holding 20 pods of 10 Deployments of 2 replicas, the
// same budgets (two waves) and Services, 2 spares.
var watchPool20 = fixture.PoolSpec{Nodes: 2, Spares: 2, Pods: 20, PDBs: 10, ExitAfter: WatchPoolExitAfter, MaxUnavailable: 1, Services: true}

// ScaleByName returns the preset called name: "default" (the full scale,
// under 20 minutes on 2 cores), "small" (under 3 minutes), "tiny" (the
// smoke test's) or "large" (20,000 pods, the default's proportions times
// four; up to 30 minutes, never part of `make test`).
func ScaleByName(name string) (Scale, error) {
	switch name {
	case "", "default":
		return Scale{Name: "default", Fixture: fixture.Default(), AuditRuns: 3, ManifestDocs: 2000,
			DrainPods: 60, DrainPDBs: 12, DrainRuns: 3, DrainExitAfter: 2 * time.Second,
			Pool: pool120, PoolConcurrentNodes: 3, PoolCalibrations: 2,
			WatchPool: watchPool2000, WatchPoolConcurrentNodes: 10,
			WatchSlices: 5000, WatchRuns: 5, RolloutReplicas: 200, Budget: 20 * time.Minute,
			ScalingPods: []int{1000}, FleetClusters: 4, FleetPods: 1000}, nil
	case "large":
		return Scale{Name: "large", Fixture: fixture.Spec{Name: "bench", Namespaces: 100, Deployments: 4000, Pods: 20000,
			Services: 4000, PDBs: 1200, HPAs: 400, Nodes: 200}, AuditRuns: 3, ManifestDocs: 2000,
			DrainPods: 60, DrainPDBs: 12, DrainRuns: 3, DrainExitAfter: 2 * time.Second,
			Pool: pool120, PoolConcurrentNodes: 3, PoolCalibrations: 2,
			WatchPool: watchPool2000, WatchPoolConcurrentNodes: 10,
			WatchSlices: 5000, WatchRuns: 5, RolloutReplicas: 200, Budget: 30 * time.Minute, AuditRSSTarget: 150e6,
			ScalingPods: []int{1000, 5000}, FleetClusters: 4, FleetPods: 1000, SkipKubectlFloor: true}, nil
	case "small":
		return Scale{Name: "small", Fixture: fixture.Spec{Name: "bench", Namespaces: 10, Deployments: 100, Pods: 500,
			Services: 100, PDBs: 30, HPAs: 10, Nodes: 5}, AuditRuns: 3, ManifestDocs: 2000,
			DrainPods: 60, DrainPDBs: 12, DrainRuns: 1, DrainExitAfter: 2 * time.Second,
			Pool: pool36, PoolConcurrentNodes: 3, PoolCalibrations: 1,
			WatchPool: watchPool20, WatchPoolConcurrentNodes: 10,
			WatchSlices: 500, WatchRuns: 3, RolloutReplicas: 50, Budget: 3 * time.Minute}, nil
	case "tiny":
		return Scale{Name: "tiny", Fixture: fixture.Spec{Name: "bench", Namespaces: 2, Deployments: 10, Pods: 20,
			Services: 10, PDBs: 3, HPAs: 1, Nodes: 2}, AuditRuns: 1, ManifestDocs: 40, ScalingPods: []int{10},
			FleetClusters: 2, FleetPods: 10,
			DrainPods: 6, DrainPDBs: 2, DrainRuns: 1, DrainExitAfter: time.Second,
			Pool: fixture.PoolSpec{Nodes: 2, Spares: 1, Pods: 8, PDBs: 4, ExitAfter: time.Second}, PoolConcurrentNodes: 2, PoolCalibrations: 1,
			WatchSlices: 20, WatchRuns: 1, RolloutReplicas: 3, Budget: 2 * time.Minute}, nil
	}
	return Scale{}, fmt.Errorf("unknown scale %q: use default, small, tiny or large", name)
}
