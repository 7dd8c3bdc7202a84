// Package nodewatch follows every pod on a set of nodes as it terminates,
// whoever drains them (kubectl drain, cluster-autoscaler, Karpenter, this
// plugin's own drain, plain deletions), and the ready endpoints of every
// Service that selects one of those pods.
//
// Each pod is recorded and judged by the pod watch's own Recorder and
// verdict (package timeline, through the plugin's internal podset.Set), and the pods of
// one workload are judged together as a rollout (package rollout's
// ComputeWith), on one clock for the whole drain. The number of API
// watches depends on the number of nodes, not of pods or Services: one
// watch of pods per node (spec.nodeName), one of the nodes, and one each
// of the cluster's EndpointSlices and pod Events. The facts:
// docs/watch-node.md.
package nodewatch
