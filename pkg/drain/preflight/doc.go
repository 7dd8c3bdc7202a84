// Package preflight is the drain's pure half: it says what a drain of one
// node (Check) or of a pool (CheckPool) would do and what would block it
// (PodDisruptionBudgets, pods that need --force, --delete-emptydir-data or
// --ignore-daemonsets, pods annotated not to be disrupted, no room for the
// replacements), without changing the cluster.
//
// Check and CheckPool read only objects gathered beforehand (Gather,
// GatherPool, which list and ask SelfSubjectAccessReviews) and never call the
// API server, so they are tested with plain objects; ServerDryRun adds the
// API server's dry-run answer for each eviction (--dry-run=server).
//
// It lives in pkg/ because its Report is part of what pkg/drain returns to
// other programs (NodeResult.Preflight, PoolResult.Preflight). The drain
// itself (cordon, evictions, waits) is pkg/drain; the renderers are in
// internal/drain/render.
package preflight
