package timeline

// The stream names the watches use, as they appear on gap lines.
const (
	StreamPods           = "pod"
	StreamEndpointSlices = "EndpointSlices"
	StreamEvents         = "Events"
	// StreamBudgets is the watch of the cluster's PodDisruptionBudgets
	// (watch node and drain share it through a listwatch.Hub).
	StreamBudgets = "PodDisruptionBudgets"
)

// StreamPodsOn is the name of the watch of the pods on node (fieldSelector
// spec.nodeName), which watch node and drain share through a
// listwatch.Hub.
func StreamPodsOn(node string) string { return StreamPods + " on " + node }
