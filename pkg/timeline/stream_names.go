package timeline

// The stream names the watches use, as they appear on gap lines.
const (
	StreamPods           = "pod"
	StreamEndpointSlices = "EndpointSlices"
	StreamEvents         = "Events"
	// StreamBudgets is the watch of the cluster's PodDisruptionBudgets.
	StreamBudgets = "PodDisruptionBudgets"
)

// StreamPodsOn is the name of the watch of the pods on node (its Key is
// listwatch.PodsOnNode).
func StreamPodsOn(node string) string { return StreamPods + " on " + node }
