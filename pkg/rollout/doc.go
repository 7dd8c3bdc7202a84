// Package rollout follows a workload's rollout (a Deployment, StatefulSet
// or DaemonSet restarted, scaled or rolled by someone else) as one timeline
// per pod that terminates, each judged by the pod watch's own verdict
// (package timeline: the same Recorder, Stream and rules), and tracks each
// Service's ready and serving-terminating endpoints against the desired
// count, and the PodDisruptionBudgets' desiredHealthy.
//
// Follow feeds a Rollout from the API server and reports to a Printer as
// it happens; Compute judges it. The renderers are in
// internal/timeline/render. The facts: docs/watch.md.
package rollout
