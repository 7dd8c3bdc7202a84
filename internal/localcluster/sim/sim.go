// Package sim names the pod annotations that script a termination on the
// local cluster, where kwok Stages (internal/localcluster/stages) play the
// kubelet's part. Tests, bench fixtures and the Stages use these names; the
// rules they drive are in docs/local-cluster.md.
package sim

// Prefix starts every annotation of the simulation.
const Prefix = "sim.graceful.test/"

// Annotations a test sets on a pod (or a pod template) to script it.
const (
	// ExitAfter is a Go duration ("20s", "1m30s", "500ms"): the containers
	// exit that long after the delete request, instead of after the longest
	// preStop delay plus 1 s.
	ExitAfter = Prefix + "exit-after"
	// PreStopFails "true": a Warning FailedPreStopHook event, and the
	// preStop delay never happens.
	PreStopFails = Prefix + "prestop-fails"
	// Ready "false": the pod runs but never turns Ready (a failing
	// readiness probe).
	Ready = Prefix + "ready"
)

// Markers the Stages write on a pod so that their one-shot steps fire once.
const (
	// Killing marks a pod whose Killing event was sent.
	Killing = Prefix + "killing"
	// PreStopFailed marks a pod whose FailedPreStopHook event was sent.
	PreStopFailed = Prefix + "prestop-failed"
)
