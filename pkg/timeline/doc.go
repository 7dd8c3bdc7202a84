// Package timeline follows one pod's termination on its two tracks, the
// control plane (deletion, EndpointSlice conditions, removal) and the kubelet
// (Killing, preStop, SIGTERM, exit, SIGKILL), on one local monotonic clock,
// and says whether the pod stopped receiving traffic before it stopped
// serving.
//
// The model (Event, Timeline, Recorder, Compute) is pure and built from
// objects; Follow feeds it from the API server and reports each change to a
// Printer as it happens. The renderers (lines, chart, JSON, Mermaid) are in
// internal/timeline/render and only read it; pkg/rollout builds a
// workload's rollout on the same Recorder and verdict. The watches are
// pkg/listwatch's Streams. The facts:
// docs/watch.md; the verdict rules: docs/watch-verdict.md.
package timeline
