package timeline

// The stream names the watches use, as they appear on gap lines.
const (
	StreamPods           = "pod"
	StreamEndpointSlices = "EndpointSlices"
	StreamEvents         = "Events"
	// StreamBudgets is the watch of the cluster's PodDisruptionBudgets.
	StreamBudgets = "PodDisruptionBudgets"
)
