package timeline

// The stream names the watches use, as they appear on gap lines.
const (
	StreamPods           = "pod"
	StreamEndpointSlices = "EndpointSlices"
	StreamEvents         = "Events"
	// streamIngress is the poll of the Ingress controller's API.
	streamIngress = "Ingress controller"
	// StreamBudgets is the watch of the cluster's PodDisruptionBudgets.
	StreamBudgets = "PodDisruptionBudgets"
)
