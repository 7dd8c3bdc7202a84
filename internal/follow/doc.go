// Package follow runs what every watch command shares: its streams
// (pkg/listwatch), the wait for each stream's first List before acting,
// the notice loop, the settle time once nothing is left to follow, the
// probe's buckets and the end by Ctrl-C or --timeout. `watch pod`
// (pkg/timeline), `watch TYPE/NAME` (pkg/rollout) and `watch node` and
// `drain --watch` (pkg/nodewatch) keep only what differs: their objects,
// their action and their verdict.
package follow
